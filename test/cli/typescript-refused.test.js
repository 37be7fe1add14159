// TypeScript the workers' Node cannot run is bad input: one line on stderr with what to do, exit 2,
// and nothing started (no log line, no control socket, no worker), on the lines concerned. Where
// Node strips types, what strip-only mode refuses (enum, parameter properties) is caught the same way.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, scratch, expectRefused } from '../helpers/cli.js';
import { stripsByDefault } from '../../src/config/typescript.js';

const version = process.versions.node;
const strips = stripsByDefault(version);
const LOADER = /nodeArgs: \['--import', 'tsx'\]$/m;
const APP_TS = "import http from 'node:http';\nconst port: number = Number(process.env.PORT ?? 0);\nhttp.createServer((_req, res): void => { res.end('ok'); }).listen(port, '127.0.0.1');\n";

function dirWith(t, files) {
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/** `test` where `when` holds, else declared skipped with the reason in its title. */
const on = (when, why) => (when ? test : (title, ...rest) => test.skip(`${title} [skipped: ${why}]`, ...rest));
const withoutStripping = on(!strips, `Node ${version} strips types by default; Node 20 and 22.12–22.17 run it`);
const withStripping = on(strips, `Node ${version} does not strip types by default; 22.18+, 24 and 26 run it`);

async function refused(t, args, files, expected) {
  const cwd = dirWith(t, files);
  const runDir = scratch();
  t.teardown(() => fs.rmSync(runDir, { recursive: true, force: true }));
  const r = await runCli(args, { cwd, env: { NODESUP_RUN_DIR: runDir } });
  expectRefused(t, r, runDir, expected);
  return r.stderr.trim();
}

test('a .tsx entry, on every line: Node never runs it', async (t) => {
  const line = await refused(t, ['start', 'app.tsx'], { 'app.tsx': 'export const a = <div />;\n' }, /^nodesup: script: app\.tsx: Node does not run \.tsx files/);
  t.regex(line, LOADER);
});

withoutStripping(`a .ts entry where Node ${version} cannot strip types: says so, and what to do`, async (t) => {
  const line = await refused(t, ['start', 'server.ts'], { 'server.ts': APP_TS },
    new RegExp(`^nodesup: script: server\\.ts is TypeScript, which Node ${version.replace(/\./g, '\\.')} (cannot run|strips only with --experimental-strip-types)`));
  t.regex(line, /run nodesup on Node 22\.18\+ or 24\+/);
  t.regex(line, LOADER);
  t.log(line);
});

withoutStripping(`a supervisor.config.ts where Node ${version} cannot strip types: says so, and what to do`, async (t) => {
  const line = await refused(t, ['start'], { 'app.js': '', 'supervisor.config.ts': "const workers: number = 1;\nexport default { script: 'app.js', workers };\n" },
    /^nodesup: supervisor\.config\.ts: cannot load: Node .* run nodesup on Node 22\.18\+ or 24\+.*, or write it as supervisor\.config\.js$/);
  t.log(line);
});

withStripping('an enum in the entry: strip-only mode refuses it, named with its line', async (t) => {
  const line = await refused(t, ['start', 'server.ts'], { 'server.ts': `enum Port { Http = 3000 }\n${APP_TS}` },
    /^nodesup: script: server\.ts:1: TypeScript enum is not supported in strip-only mode: Node .* strips types but does not transform them; write it without enum, namespace or parameter properties/);
  t.regex(line, LOADER);
  t.log(line);
});

withStripping('parameter properties in a module the entry imports: named with the module and its line', async (t) => {
  await refused(t, ['start', 'server.ts'], {
    'server.ts': `import { Store } from './lib/store.ts';\nnew Store(1);\n${APP_TS}`,
    'lib/store.ts': 'export class Store {\n  constructor(private size: number) {}\n}\n',
  }, /^nodesup: script: lib\/store\.ts:2 \(imported by server\.ts\): TypeScript parameter property is not supported in strip-only mode/);
});

withStripping('type stripping turned off in nodeArgs: says which flag', async (t) => {
  await refused(t, ['start'], {
    'server.ts': APP_TS,
    'supervisor.config.js': "export default { script: 'server.ts', nodeArgs: ['--no-experimental-strip-types'] };\n",
  }, /^nodesup: script: server\.ts is TypeScript, and --no-experimental-strip-types in nodeArgs or NODE_OPTIONS turns Node's type stripping off: drop it/);
});

withStripping('an enum in supervisor.config.ts: strip-only mode refuses it, named with its line', async (t) => {
  await refused(t, ['start'], { 'app.js': '', 'supervisor.config.ts': "const a = 1;\nenum Workers { Two = 2 }\nexport default { script: 'app.js', workers: Workers.Two };\n" },
    /^nodesup: supervisor\.config\.ts: cannot load: TypeScript enum is not supported in strip-only mode \(line 2\): Node strips types but does not transform them; .*or write it as supervisor\.config\.js$/);
});
