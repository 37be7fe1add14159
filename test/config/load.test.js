import test from 'ava';
import { mkdtemp, writeFile, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, flagsToConfig, flagOf, resolveWorkers, defaultName } from '../../src/config/load.js';
import { stripsByDefault } from '../../src/config/typescript.js';

const MiB = 1024 ** 2;
const dirs = [];

// A fresh directory with the given files and an app script to run.
async function project(files = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'nodesup-config-'));
  dirs.push(dir);
  await writeFile(join(dir, 'app.js'), 'console.log("hi");\n');
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

// ESM .js needs "type": "module", or Node 20 re-parses it with a warning on stderr.
const esm = (text) => ({ 'package.json': '{"type":"module"}', 'supervisor.config.js': text });

async function rejection(t, promise, code, message) {
  const err = await t.throwsAsync(promise);
  t.is(err.code, code);
  if (message !== undefined) t.is(err.message, message);
  t.false(err.message.includes('\n'));
  return err;
}

test.after.always(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

test('no config file: defaults, the script from the command line', async (t) => {
  const cwd = await project();
  const c = await loadConfig({ cwd, script: 'app.js', flags: { workers: 2 } });
  t.is(c.script, join(cwd, 'app.js'));
  t.is(c.name, 'app');
  t.is(c.workers, 2);
  t.is(c.configFile, null);
  t.is(c.pollInterval, 1000);
  t.deepEqual(c.args, []);
  t.deepEqual(c.metrics, { host: '127.0.0.1', port: 9209 });
});

test('ESM object', async (t) => {
  const cwd = await project(esm("export default { name: 'api', script: 'app.js', workers: 3, limits: { rss: '300mb' } };\n"));
  const c = await loadConfig({ cwd });
  t.is(c.name, 'api');
  t.is(c.workers, 3);
  t.is(c.limits.rss, 300 * MiB);
  t.is(c.limits.jitter, 0.1);
  t.is(c.configFile, join(cwd, 'supervisor.config.js'));
});

test('ESM function', async (t) => {
  const cwd = await project(esm("export default () => ({ script: 'app.js', workers: 2 });\n"));
  t.is((await loadConfig({ cwd })).workers, 2);
});

test('ESM async function', async (t) => {
  const cwd = await project(esm("export default async () => { await null; return { script: 'app.js', pollInterval: '2s' }; };\n"));
  t.is((await loadConfig({ cwd })).pollInterval, 2000);
});

test('.mjs is found when there is no .js', async (t) => {
  const cwd = await project({ 'supervisor.config.mjs': "export default { script: 'app.js', workers: 5 };\n" });
  const c = await loadConfig({ cwd });
  t.is(c.workers, 5);
  t.is(c.configFile, join(cwd, 'supervisor.config.mjs'));
});

test('CommonJS .cjs', async (t) => {
  const cwd = await project({ 'supervisor.config.cjs': "module.exports = { script: 'app.js', workers: 4 };\n" });
  t.is((await loadConfig({ cwd })).workers, 4);
});

test('CommonJS .js in a package without "type": "module"', async (t) => {
  const cwd = await project({ 'package.json': '{}', 'supervisor.config.js': "module.exports = async () => ({ script: 'app.js', workers: 6 });\n" });
  t.is((await loadConfig({ cwd })).workers, 6);
});

test('transpiled `exports.default` (__esModule) is unwrapped', async (t) => {
  const cwd = await project({ 'supervisor.config.cjs': "exports.__esModule = true; exports.default = { script: 'app.js', workers: 7 };\n" });
  t.is((await loadConfig({ cwd })).workers, 7);
});

test('.js wins over .mjs and .cjs', async (t) => {
  const cwd = await project({
    ...esm("export default { script: 'app.js', workers: 1 };\n"),
    'supervisor.config.mjs': "export default { script: 'app.js', workers: 2 };\n",
  });
  t.is((await loadConfig({ cwd })).workers, 1);
});

// The primary's own Node reads the config: a .ts one loads where it strips types (22.18+, 23.6+).
const stripsHere = stripsByDefault(process.versions.node);
const whereStrips = stripsHere ? test : (title, ...rest) => test.skip(`${title} [skipped: Node ${process.versions.node} does not strip types by default]`, ...rest);
const whereNot = stripsHere ? (title, ...rest) => test.skip(`${title} [skipped: Node ${process.versions.node} strips types by default]`, ...rest) : test;

whereStrips('supervisor.config.ts loads, types stripped, after the .js names', async (t) => {
  const ts = "interface Limits { rss: string }\nconst limits: Limits = { rss: '300mb' };\nexport default { script: 'app.js', workers: 3 as number, limits };\n";
  const cwd = await project({ 'supervisor.config.ts': ts });
  const c = await loadConfig({ cwd });
  t.is(c.workers, 3);
  t.is(c.limits.rss, 300 * MiB);
  t.is(c.configFile, join(cwd, 'supervisor.config.ts'));
  const both = await project({ 'supervisor.config.ts': ts, 'supervisor.config.cjs': "module.exports = { script: 'app.js', workers: 1 };\n" });
  t.is((await loadConfig({ cwd: both })).workers, 1, 'a JavaScript config wins');
});

whereNot('supervisor.config.ts where Node cannot strip types: one line with what to do', async (t) => {
  const cwd = await project({ 'supervisor.config.ts': "const workers: number = 3;\nexport default { script: 'app.js', workers };\n" });
  const err = await rejection(t, loadConfig({ cwd }), 'NODESUP_ERR_CONFIG_LOAD');
  t.regex(err.message, /^supervisor\.config\.ts: cannot load: Node \S+ .*run nodesup on Node 22\.18\+ or 24\+.*, or write it as supervisor\.config\.js$/);
  t.is(err.exitCode, 2);
});

test('an edited file is read again (ESM and CommonJS caches are busted)', async (t) => {
  for (const [file, write] of [
    ['supervisor.config.mjs', (n) => `export default { script: 'app.js', workers: ${n} };\n`],
    ['supervisor.config.cjs', (n) => `module.exports = { script: 'app.js', workers: ${n} };\n`],
  ]) {
    const cwd = await project({ [file]: write(1) });
    t.is((await loadConfig({ cwd })).workers, 1);
    await writeFile(join(cwd, file), write(2));
    await new Promise((r) => setTimeout(r, 5)); // a new Date.now() for the query
    t.is((await loadConfig({ cwd })).workers, 2, file);
  }
});

test('--config names a file relative to cwd', async (t) => {
  const cwd = await project({ 'conf/prod.config.mjs': "export default { script: '../app.js', workers: 8 };\n" });
  const c = await loadConfig({ cwd, configPath: 'conf/prod.config.mjs' });
  t.is(c.workers, 8);
  // The config's own `script` is relative to the config file.
  t.is(c.script, join(cwd, 'app.js'));
  t.is(c.configFile, join(cwd, 'conf/prod.config.mjs'));
});

test('a missing --config file is an error, not defaults', async (t) => {
  const cwd = await project();
  await rejection(t, loadConfig({ cwd, configPath: 'nope.config.js', script: 'app.js' }),
    'NODESUP_ERR_CONFIG_LOAD', `nope.config.js: cannot load: no such file (in ${cwd})`);
});

test('--config naming a directory', async (t) => {
  const cwd = await project({ 'conf/x.txt': '' });
  await rejection(t, loadConfig({ cwd, configPath: 'conf', script: 'app.js' }),
    'NODESUP_ERR_CONFIG_LOAD', `conf: cannot load: a directory (in ${cwd})`);
});

test('a syntax error is one line with the line number', async (t) => {
  const cwd = await project(esm("export default {\n  workers: 2,\n  }}\n"));
  const err = await rejection(t, loadConfig({ cwd, script: 'app.js' }),
    'NODESUP_ERR_CONFIG_LOAD', "supervisor.config.js: cannot load: Unexpected token '}' (line 3)");
  t.is(err.exitCode, 2);
});

test('a syntax error in CommonJS', async (t) => {
  const cwd = await project({ 'supervisor.config.cjs': 'module.exports = {\n  a: 1,,\n};\n' });
  await rejection(t, loadConfig({ cwd, script: 'app.js' }),
    'NODESUP_ERR_CONFIG_LOAD', "supervisor.config.cjs: cannot load: Unexpected token ',' (line 2)");
});

test('a throw while evaluating: the first line of the message and the line', async (t) => {
  const cwd = await project(esm('const x = 1;\nthrow new Error("boom\\nmore detail");\nexport default {};\n'));
  const err = await rejection(t, loadConfig({ cwd, script: 'app.js' }),
    'NODESUP_ERR_CONFIG_LOAD', 'supervisor.config.js: cannot load: boom (line 2)');
  t.is(err.cause.message, 'boom\nmore detail');
});

test('a throw inside the exported async function', async (t) => {
  const cwd = await project({ 'supervisor.config.cjs': '\nmodule.exports = async () => {\n  throw new TypeError("no env");\n};\n' });
  await rejection(t, loadConfig({ cwd, script: 'app.js' }),
    'NODESUP_ERR_CONFIG_LOAD', 'supervisor.config.cjs: cannot load: no env (line 3)');
});

test("importing 'nodesup' where it is not installed says what to do", async (t) => {
  const cwd = await project(esm("import { defineConfig } from 'nodesup';\nexport default defineConfig({});\n"));
  const err = await rejection(t, loadConfig({ cwd, script: 'app.js' }), 'NODESUP_ERR_CONFIG_LOAD');
  t.regex(err.message, /^supervisor\.config\.js: cannot load: Cannot find package 'nodesup' .*; install nodesup in this project \(npm i -D nodesup\) or drop the defineConfig import$/);
});

test('no default export, or not an object', async (t) => {
  const named = await project(esm('export const workers = 2;\n'));
  await rejection(t, loadConfig({ cwd: named, script: 'app.js' }), 'NODESUP_ERR_CONFIG',
    'supervisor.config.js: export default: expected an object or a function returning one, got nothing');
  const number = await project(esm('export default () => 42;\n'));
  await rejection(t, loadConfig({ cwd: number, script: 'app.js' }), 'NODESUP_ERR_CONFIG',
    'supervisor.config.js: export default: expected an object or a function returning one, got 42');
});

test('a bad key in the file names the file', async (t) => {
  const cwd = await project(esm("export default { limits: { rss: 'lots' } };\n"));
  await rejection(t, loadConfig({ cwd, script: 'app.js' }), 'NODESUP_ERR_CONFIG',
    'supervisor.config.js: limits.rss: expected a size like "512mb", got "lots"');
});

test('flags override the file; untouched keys keep the file value', async (t) => {
  const cwd = await project(esm("export default { script: 'app.js', workers: 2, limits: { rss: '1gb', heapUsed: '300mb' }, metrics: false, tui: true };\n"));
  const flags = flagsToConfig({ workers: '4', 'max-rss': '512mb', metrics: '0.0.0.0:9300', 'log-level': 'debug', tui: false });
  const c = await loadConfig({ cwd, flags });
  t.is(c.workers, 4);
  t.is(c.limits.rss, 512 * MiB);
  t.is(c.limits.heapUsed, 300 * MiB);
  t.deepEqual(c.metrics, { host: '0.0.0.0', port: 9300 });
  t.deepEqual(c.log, { level: 'debug', format: 'json' });
  t.false(c.tui);
});

test('a flag overrides a bad value in the file', async (t) => {
  const cwd = await project(esm("export default { script: 'app.js', limits: { rss: 'lots' } };\n"));
  t.is((await loadConfig({ cwd, flags: { limits: { rss: '1gb' } } })).limits.rss, 1024 * MiB);
});

test('a bad flag is blamed on the flag', async (t) => {
  const cwd = await project(esm("export default { script: 'app.js' };\n"));
  const cases = [
    [{ 'max-rss': 'lots' }, '--max-rss: expected a size like "512mb", got "lots"'],
    [{ maxHeap: '-1' }, '--max-heap: expected a size like "512mb", got "-1"'],
    [{ workers: 'many' }, '--workers: expected a positive integer or "max", got "many"'],
    [{ 'poll-interval': '10ms' }, '--poll-interval: expected a duration of at least 100ms, got "10ms"'],
    [{ 'kill-timeout': 'later' }, '--kill-timeout: expected a duration like "10s", got "later"'],
    [{ metrics: 'nowhere' }, '--metrics: expected an object like { host, port }, "host:port" or false, got "nowhere"'],
    [{ 'log-level': 'loud' }, '--log-level: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    [{ 'log-format': 'xml' }, '--log-format: expected "json" or "pretty", got "xml"'],
    [{ name: 'a b' }, '--name: expected 1-64 letters, digits, ".", "_" or "-", not starting with "." or "-", got "a b"'],
  ];
  for (const [argv, message] of cases) {
    await rejection(t, loadConfig({ cwd, flags: flagsToConfig(argv) }), 'NODESUP_ERR_CONFIG', message);
  }
});

test('flagsToConfig maps only the flags that were given', (t) => {
  t.deepEqual(flagsToConfig({ _: ['start'], $0: 'nodesup', script: 'app.js', config: 'x.js' }), {});
  t.deepEqual(flagsToConfig({
    workers: '4', 'max-rss': '512mb', maxRss: '512mb', 'max-heap': '300mb', 'poll-interval': '2s',
    'kill-timeout': '5s', tui: true, metrics: 'false', 'log-level': 'warn', 'log-format': 'pretty', name: 'api',
  }), {
    workers: 4,
    limits: { rss: '512mb', heapUsed: '300mb' },
    pollInterval: '2s',
    recycle: { killTimeout: '5s' },
    tui: true,
    metrics: false,
    log: { level: 'warn', format: 'pretty' },
    name: 'api',
  });
  t.deepEqual(flagsToConfig({ workers: 'max', metrics: ':9300' }), { workers: 'max', metrics: ':9300' });
  t.deepEqual(flagsToConfig({ maxHeap: '1gb', logFormat: 'json' }), { limits: { heapUsed: '1gb' }, log: { format: 'json' } });
});

test('flagOf names the flag of a config key', (t) => {
  t.is(flagOf('limits.rss'), '--max-rss');
  t.is(flagOf('recycle.killTimeout'), '--kill-timeout');
  t.is(flagOf('metrics.port'), '--metrics');
  t.is(flagOf('limits.jitter'), '--limits.jitter');
});

test('app args after -- replace the config args', async (t) => {
  const cwd = await project(esm("export default { script: 'app.js', args: ['--port', '3000'] };\n"));
  t.deepEqual((await loadConfig({ cwd })).args, ['--port', '3000']);
  t.deepEqual((await loadConfig({ cwd, appArgs: ['--port', '4000'] })).args, ['--port', '4000']);
  t.deepEqual((await loadConfig({ cwd, appArgs: [] })).args, ['--port', '3000']);
});

test('the script on the command line wins over the config', async (t) => {
  const cwd = await project({ ...esm("export default { script: 'other.js' };\n"), 'server.js': '' });
  const c = await loadConfig({ cwd, script: 'server.js' });
  t.is(c.script, join(cwd, 'server.js'));
  t.is(c.name, 'server');
});

test('no script at all is a usage error', async (t) => {
  const cwd = await project();
  await rejection(t, loadConfig({ cwd }), 'NODESUP_ERR_USAGE',
    'no script to run: pass one (nodesup start app.js) or set `script` in supervisor.config.js');
});

test('a missing script', async (t) => {
  const cwd = await project();
  const err = await rejection(t, loadConfig({ cwd, script: 'missing.js' }), 'NODESUP_ERR_SCRIPT',
    `script: expected a readable file, got ${JSON.stringify(join(cwd, 'missing.js'))} (not found)`);
  t.is(err.exitCode, 2);
});

test('a script that is a directory', async (t) => {
  const cwd = await project({ 'lib/index.js': '' });
  await rejection(t, loadConfig({ cwd, script: 'lib' }), 'NODESUP_ERR_SCRIPT',
    `script: expected a readable file, got ${JSON.stringify(join(cwd, 'lib'))} (a directory)`);
});

test('a missing script named in the config', async (t) => {
  const cwd = await project(esm("export default { script: 'server.js' };\n"));
  await rejection(t, loadConfig({ cwd }), 'NODESUP_ERR_SCRIPT',
    `script: expected a readable file, got ${JSON.stringify(join(cwd, 'server.js'))} (not found)`);
});

test('the name defaults to the script basename, made socket-safe', async (t) => {
  const cwd = await project({ 'my server.v2.mjs': '' });
  t.is((await loadConfig({ cwd, script: 'my server.v2.mjs' })).name, 'my-server.v2');
  t.is(defaultName('/srv/api.js'), 'api');
  t.is(defaultName('/srv/ü.js'), 'app');
  t.is(defaultName(`/srv/${'a'.repeat(100)}.js`), 'a'.repeat(64));
});

test('a bad name in the config', async (t) => {
  const cwd = await project(esm("export default { name: 'my/api', script: 'app.js' };\n"));
  await rejection(t, loadConfig({ cwd }), 'NODESUP_ERR_CONFIG',
    'supervisor.config.js: name: expected 1-64 letters, digits, ".", "_" or "-", not starting with "." or "-", got "my/api"');
});

test("workers: 'max' is a positive number", async (t) => {
  const cwd = await project();
  const c = await loadConfig({ cwd, script: 'app.js' });
  t.true(Number.isInteger(c.workers) && c.workers >= 1);
});

test("resolveWorkers: 'max' is the CPU count capped by the cgroup quota, rounded up", (t) => {
  t.is(resolveWorkers(3, { parallelism: 8, cpuQuota: 1 }), 3);
  t.is(resolveWorkers('max', { parallelism: 8, cpuQuota: null }), 8);
  t.is(resolveWorkers('max', { parallelism: 8, cpuQuota: 2 }), 2);
  t.is(resolveWorkers('max', { parallelism: 8, cpuQuota: 1.5 }), 2);
  t.is(resolveWorkers('max', { parallelism: 8, cpuQuota: 0.5 }), 1);
  t.is(resolveWorkers('max', { parallelism: 2, cpuQuota: 16 }), 2);
});
