// Fuzzed command lines on the real CLI: each generated `nodesup start …` carries one thing that
// must be refused (a bad flag value, an unknown flag, a bad config file, no script) among random
// other flags. Always exit 2, one line on stderr, nothing on stdout, and nothing left running.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, scratch, app } from '../helpers/cli.js';
import { prng, limiter, processesIn } from './_helpers.js';

const HTTP = app('http.js');
const CASES = 30;
const oneAtATime = limiter(3); // 2 shared cores: a few CLIs at once, not thirty

const BAD_FLAG_VALUES = {
  '--workers': ['-1', '0', 'lots', '1.5', '1025', ''], '--max-rss': ['lots', '0', '-1mb', '1e3mb'], '--max-heap': ['0b', 'big'],
  '--poll-interval': ['often', '50ms', '-1s'], '--kill-timeout': ['soon', '-1s', '1 fortnight'], '--metrics': ['here', '[::1]:99999', 'host:'],
  '--log-level': ['LOUD', 'verbose'], '--log-format': ['xml', 'JSON'], '--name': ['a/b', '.x', 'x y', 'a'.repeat(65)],
};
const ANY_FLAG_VALUES = {
  '--workers': ['1', '2', 'max', '-1', 'lots'], '--max-rss': ['512mb', '1.5gb', 'lots'], '--max-heap': ['300mb', '0'],
  '--poll-interval': ['1s', '500ms', 'often'], '--kill-timeout': ['2s', 'soon'], '--metrics': ['false', '127.0.0.1:0', 'here'],
  '--log-level': ['info', 'LOUD'], '--log-format': ['json', 'pretty', 'xml'], '--name': ['api', 'a/b'],
};
const BAD_CONFIGS = [
  'export default { limits: { rss: "1mb" } ;',
  'throw new Error("no env var API_KEY");',
  'export default { restrat: { maxCrashes: 1 } };',
  'export default { restart: { maxCrashes: 0 } };',
  'export default { leak: { window: "soon" } };',
  'export default { recycle: { maxConcurrent: 0 } };',
  'export default { restart: { initialDelay: "10s", maxDelay: "1s" } };',
  'export default { env: { PORT: {} } };',
  'export default { nodeArgs: "--max-old-space-size=100" };',
  'export default () => 42;',
  'export default async () => { throw new Error("vault\\nunreachable"); };',
  'export default { instances: 4 };',
];

// One generated case: args, files to write in the working directory, and what makes it bad.
function generate(seed) {
  const rnd = prng(seed);
  let script = HTTP;
  const extras = [];
  const files = {};
  let poison;
  switch (rnd.int(6)) {
    case 0: {
      const flag = rnd.pick(Object.keys(BAD_FLAG_VALUES));
      const value = rnd.pick(BAD_FLAG_VALUES[flag]);
      poison = rnd.chance(0.5) ? [`${flag}=${value}`] : [flag, value];
      break;
    }
    case 1:
      poison = [rnd.pick(['--max-rsss', '--bogus', '-x', '--metrics-port', '--workers-count', '--no-such-flag'])];
      if (rnd.chance(0.5)) poison.push('1');
      break;
    case 2:
      script = rnd.pick(['nope.js', '.', 'dir/', '']);
      if (script === 'dir/') files['dir/.keep'] = '';
      poison = [];
      break;
    case 3:
      files['supervisor.config.mjs'] = rnd.pick(BAD_CONFIGS);
      poison = [];
      break;
    case 4: {
      const name = rnd.pick(['custom.config.mjs', 'conf.cjs']);
      files[name] = name.endsWith('.cjs') ? 'module.exports = { workers: "many" };' : rnd.pick(BAD_CONFIGS);
      poison = rnd.chance(0.3) ? ['-c', 'missing.config.mjs'] : ['-c', name];
      break;
    }
    default:
      script = null; // no script on the command line and none in a config
      poison = [];
  }
  for (let n = rnd.int(4); n > 0; n--) {
    const flag = rnd.pick([...Object.keys(ANY_FLAG_VALUES), '--tui', '-w']);
    if (flag === '--tui') extras.push([rnd.pick(['--tui', '--no-tui'])]);
    else if (flag === '-w') extras.push(['-w', rnd.pick(ANY_FLAG_VALUES['--workers'])]);
    else extras.push([flag, rnd.pick(ANY_FLAG_VALUES[flag])]);
  }
  extras.splice(rnd.int(extras.length + 1), 0, poison);
  const args = ['start', ...(script === null ? [] : [script]), ...extras.flat()];
  if (rnd.chance(0.2)) args.push('--', '--app-flag', 'x');
  return { args, files };
}

for (let i = 0; i < CASES; i++) {
  const seed = 9000 + i;
  const { args, files } = generate(seed);
  const shown = args.map((a) => (a === HTTP ? 'http.js' : JSON.stringify(a))).join(' ');
  test(`seed ${seed}: nodesup ${shown}${Object.keys(files).length ? ` with ${Object.keys(files).join(', ')}` : ''}: exit 2, one line, nothing started`, async (t) => {
    const cwd = scratch();
    const runDir = path.join(scratch(), 'run');
    t.teardown(() => {
      for (const pid of processesIn(cwd)) try { process.kill(pid, 'SIGKILL'); } catch {}
      fs.rmSync(cwd, { recursive: true, force: true });
      fs.rmSync(path.dirname(runDir), { recursive: true, force: true });
    });
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(cwd, name)), { recursive: true });
      fs.writeFileSync(path.join(cwd, name), text);
    }
    const r = await oneAtATime(() => runCli(args, { cwd, env: { NODESUP_RUN_DIR: runDir, PORT: '0' }, execa: { timeout: 20_000 } }));
    const left = processesIn(cwd);
    t.is(r.exitCode, 2, `stderr: ${r.stderr}\nstdout: ${r.stdout.slice(0, 500)}`);
    t.regex(r.stderr, /^nodesup: \S/);
    t.is(r.stderr.trimEnd().split('\n').length, 1, `exactly one line, got:\n${r.stderr}`);
    t.notRegex(r.stderr, /\n\s+at |internal error/, 'no stack trace');
    t.is(r.stdout, '', 'no logs: nothing was started');
    t.deepEqual(fs.existsSync(runDir) ? fs.readdirSync(runDir).filter((f) => f.endsWith('.sock')) : [], [], 'no control socket');
    t.deepEqual(left, [], 'no process left running in the working directory');
  });
}

// A duration too long for a timer is refused up front (exit 2): setTimeout would turn it into
// 1 ms, and a readyTimeout of 30 days would kill every worker as it forked.
test('a readyTimeout of 30 days is refused up front, not turned into 1 ms', async (t) => {
  const cwd = scratch();
  const runDir = path.join(scratch(), 'run');
  t.teardown(() => {
    for (const pid of processesIn(cwd)) try { process.kill(pid, 'SIGKILL'); } catch {}
    fs.rmSync(cwd, { recursive: true, force: true });
    fs.rmSync(path.dirname(runDir), { recursive: true, force: true });
  });
  fs.writeFileSync(path.join(cwd, 'supervisor.config.mjs'), 'export default { recycle: { readyTimeout: "30d" }, restart: { maxCrashes: 3 } };\n');
  const r = await oneAtATime(() => runCli(['start', HTTP, '-w', '1', '--metrics', 'false'], { cwd, env: { NODESUP_RUN_DIR: runDir, PORT: '0' }, execa: { timeout: 20_000 } }));
  t.deepEqual(processesIn(cwd), [], 'nothing left running');
  t.is(r.exitCode, 2, r.stderr);
  t.regex(r.stderr, /^nodesup: supervisor\.config\.mjs: recycle\.readyTimeout: expected a duration up to/);
  t.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
});
