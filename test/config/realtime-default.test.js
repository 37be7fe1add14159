// `balance` left unset is decided at load from the app's package.json: socket.io or engine.io in
// its dependencies gives 'sticky'; a choice in the config stays.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decideBalance, appManifest } from '../../src/config/realtime-default.js';
import { loadConfig } from '../../src/config/load.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A throwaway app: files by relative path (objects are written as JSON); returns its directory. */
function appDir(t, files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodesup-balance-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

test('socket.io in dependencies: sticky, saying which package.json and which dependency', (t) => {
  const dir = appDir(t, { 'package.json': { name: 'chat', dependencies: { express: '^5', 'socket.io': '^4.8.0' } }, 'server.js': '' });
  t.deepEqual(decideBalance(null, path.join(dir, 'server.js')), {
    balance: 'sticky', balanceFrom: { dependency: 'socket.io', packageJson: path.join(dir, 'package.json') },
  });
});

test('engine.io (optionalDependencies too) counts; devDependencies do not (tests and tools are not the app)', (t) => {
  const engine = appDir(t, { 'package.json': { name: 'a', optionalDependencies: { 'engine.io': '^6' } }, 'server.js': '' });
  t.like(decideBalance(null, path.join(engine, 'server.js')), { balance: 'sticky', balanceFrom: { dependency: 'engine.io' } });
  const dev = appDir(t, { 'package.json': { name: 'lib', devDependencies: { 'socket.io': '^4' } }, 'server.js': '' });
  t.deepEqual(decideBalance(null, path.join(dev, 'server.js')), { balance: 'round-robin', balanceFrom: null });
  const client = appDir(t, { 'package.json': { name: 'c', dependencies: { 'socket.io-client': '^4' } }, 'server.js': '' });
  t.is(decideBalance(null, path.join(client, 'server.js')).balance, 'round-robin', 'a client of socket.io serves none');
});

test('the config\'s choice stays, either way', (t) => {
  const dir = appDir(t, { 'package.json': { name: 'chat', dependencies: { 'socket.io': '^4' } }, 'server.js': '' });
  t.deepEqual(decideBalance('round-robin', path.join(dir, 'server.js')), { balance: 'round-robin', balanceFrom: null });
  t.deepEqual(decideBalance('sticky', path.join(dir, 'server.js')), { balance: 'sticky', balanceFrom: null });
});

test('the nearest package.json that names a package or lists dependencies: a {"type":"module"} marker is passed by', (t) => {
  const dir = appDir(t, {
    'package.json': { name: 'chat', dependencies: { 'socket.io': '^4' } },
    'dist/package.json': { type: 'module' },
    'dist/server/main.js': '',
    'packages/other/package.json': { name: 'other', dependencies: {} },
    'packages/other/index.js': '',
  });
  t.is(appManifest(path.join(dir, 'dist/server/main.js')).file, path.join(dir, 'package.json'));
  t.is(decideBalance(null, path.join(dir, 'dist/server/main.js')).balance, 'sticky');
  t.is(decideBalance(null, path.join(dir, 'packages/other/index.js')).balance, 'round-robin', 'a package of its own: its dependencies, not the root\'s');
});

test('no package.json, or a broken one: round-robin', (t) => {
  const none = appDir(t, { 'server.js': '' });
  t.is(decideBalance(null, path.join(none, 'server.js')).balance, 'round-robin');
  const broken = appDir(t, { 'package.json': '{ "dependencies": { "socket.io": ', 'server.js': '' });
  t.is(decideBalance(null, path.join(broken, 'server.js')).balance, 'round-robin');
});

test('this repository\'s fixtures keep round-robin: socket.io is only a devDependency here', (t) => {
  t.is(decideBalance(null, path.join(ROOT, 'test/fixtures/apps/socketio.js')).balance, 'round-robin');
  t.like(decideBalance(null, path.join(ROOT, 'test/fixtures/apps/socketio-app/server.js')), { balance: 'sticky', balanceFrom: { dependency: 'socket.io' } });
});

test('loadConfig decides it for the script it resolves, and a config file\'s balance wins', async (t) => {
  const dir = appDir(t, { 'package.json': { name: 'chat', type: 'module', dependencies: { 'socket.io': '^4' } }, 'server.js': '' });
  const decided = await loadConfig({ cwd: dir, script: 'server.js' });
  t.like(decided, { balance: 'sticky', balanceFrom: { dependency: 'socket.io', packageJson: path.join(dir, 'package.json') } });
  fs.writeFileSync(path.join(dir, 'supervisor.config.js'), "export default { balance: 'round-robin' };\n");
  t.like(await loadConfig({ cwd: dir, script: 'server.js' }), { balance: 'round-robin', balanceFrom: null });
});

test("'reuse-port' is kept where the host has it, and falls back to round-robin, saying why, where it would drop connections", (t) => {
  const dir = appDir(t, { 'package.json': { name: 'api', dependencies: { express: '^5' } }, 'server.js': '' });
  const script = path.join(dir, 'server.js');
  t.deepEqual(decideBalance('reuse-port', script, { node: '22.12.0', migrateReq: 1 }), { balance: 'reuse-port', balanceFrom: null });
  t.like(decideBalance('reuse-port', script, { node: '26.1.0', migrateReq: 0 }),
    { balance: 'round-robin', balanceFrom: { requested: 'reuse-port', reason: 'tcp_migrate_req' } });
  t.like(decideBalance('reuse-port', script, { node: '24.0.0', migrateReq: null }), { balance: 'round-robin', balanceFrom: { reason: 'tcp_migrate_req' } });
  t.like(decideBalance('reuse-port', script, { node: '22.11.0', migrateReq: 1 }), { balance: 'round-robin', balanceFrom: { reason: 'node' } });
  t.like(decideBalance('reuse-port', script, { node: '20.20.2', migrateReq: 1 }), { balance: 'round-robin', balanceFrom: { reason: 'node' } });
});

test("'reuse-port' for an app that depends on socket.io is refused: the kernel would scatter a long-polling session's requests", (t) => {
  const dir = appDir(t, { 'package.json': { name: 'chat', dependencies: { 'socket.io': '^4.8.0' } }, 'server.js': '' });
  const err = t.throws(() => decideBalance('reuse-port', path.join(dir, 'server.js'), { node: '24.0.0', migrateReq: 1 }));
  t.is(err.code, 'NODESUP_ERR_CONFIG');
  t.regex(err.message, /depends on socket\.io.*balance: 'sticky'/);
});
