// Bad input: one line on stderr naming what was wrong, exit 2, and nothing started.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, scratch, app, expectRefused } from '../helpers/cli.js';
import { loadConfig } from '../../src/config/load.js';

function dirWith(files) {
  const dir = scratch();
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const http = app('http.js');
const cases = [
  ['no command', [], {}, /name a command/],
  ['unknown command', ['launch'], {}, /Unknown argument: launch/],
  ['unknown flag', ['start', http, '--max-rsss', '1mb'], {}, /Unknown argument/],
  ['missing script', ['start', 'nope.js'], {}, /script: expected a readable file, got ".*nope\.js" \(not found\)/],
  ['script is a directory', ['start', '.'], {}, /script: expected a readable file/],
  ['TypeScript .tsx script', ['start', 'app.tsx'], { 'app.tsx': '' }, /^nodesup: script: app\.tsx: Node does not run \.tsx files.*nodeArgs: \['--import', 'tsx'\]$/m],
  ['no script at all', ['start'], {}, /script/],
  ['bad size flag', ['start', http, '--max-rss', 'lots'], {}, /^nodesup: --max-rss: expected a size like "512mb", got "lots"$/m],
  ['bad duration flag', ['start', http, '--poll-interval', 'often'], {}, /--poll-interval: expected a duration like "10s", got "often"/],
  ['bad workers', ['start', http, '-w', '-1'], {}, /--workers: expected/],
  ['bad log format', ['start', http, '--log-format', 'xml'], {}, /--log-format: expected/],
  ['bad metrics address', ['start', http, '--metrics', 'here'], {}, /--metrics: expected/],
  ['unknown config key', ['start', http], { 'supervisor.config.js': 'export default { limits: { rsss: "1mb" } };' }, /supervisor\.config\.js: limits\.rsss: unknown key \(did you mean "rss"\?\)/],
  ['bad config value', ['start', http], { 'supervisor.config.js': 'export default { limits: { rss: "lots" } };' }, /^nodesup: supervisor\.config\.js: limits\.rss: expected a size like "512mb", got "lots"$/m],
  ['config syntax error', ['start', http], { 'supervisor.config.js': 'export default { limits: { rss: "1mb" } ;\n' }, /supervisor\.config\.js: cannot load:/],
  ['config that throws', ['start', http], { 'supervisor.config.js': 'throw new Error("no env var API_KEY");' }, /cannot load: no env var API_KEY/],
  ['missing explicit config', ['start', http, '-c', 'missing.config.js'], {}, /missing\.config\.js/],
  ['bad name', ['start', http, '--name', 'a/b'], {}, /--name: expected/],
  ['recycle slot not a number', ['recycle', 'x'], {}, /slot: expected a whole number/],
];

for (const [name, args, files, expected] of cases) {
  test(`${name}: one line, exit 2, nothing started`, async (t) => {
    const cwd = dirWith(files);
    const runDir = scratch();
    const r = await runCli(args, { cwd, env: { NODESUP_RUN_DIR: runDir } });
    expectRefused(t, r, runDir, expected);
  });
}

test('status/stop with no supervisor running: a clear message and exit 1', async (t) => {
  const r = await runCli(['status', '--json'], { env: { NODESUP_RUN_DIR: scratch() } });
  t.is(r.exitCode, 1);
  t.regex(r.stderr, /no nodesup supervisor is running/);
});

for (const pkg of [null, '{"type":"module"}', '{"type":"commonjs"}']) {
  test(`init writes a config that loads (package.json: ${pkg ?? 'none'})`, async (t) => {
    const cwd = dirWith({ 'server.js': '', ...(pkg ? { 'package.json': pkg } : {}) });
    const r = await runCli(['init'], { cwd });
    t.is(r.exitCode, 0, r.stderr);
    const config = await loadConfig({ cwd, script: 'server.js' });
    t.is(config.pollInterval, 1000);
    t.is(config.configFile, path.join(cwd, 'supervisor.config.js'));
  });
}

test('init refuses to overwrite an existing config', async (t) => {
  const cwd = scratch();
  const first = await runCli(['init'], { cwd });
  t.is(first.exitCode, 0, first.stderr);
  const second = await runCli(['init'], { cwd });
  t.is(second.exitCode, 2);
  t.regex(second.stderr, /already exists.*--force/);
});
