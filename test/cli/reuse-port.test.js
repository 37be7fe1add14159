// balance: 'reuse-port': every worker listens on the app's port itself and the kernel spreads the
// connections. Through memory recycles and a reload, a new connection per request and keep-alive
// connections lose nothing, and no worker is forced. Where the host cannot keep that promise
// nodesup says so and runs round-robin; where it cannot work at all (socket.io's long-polling, a
// stranger on the port) it refuses.
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { execa } from 'execa';
import { accountedLoad } from '../../bench/lib/accounted-load.js';
import { startCli, runCli, app, freePort, waitGone, writeConfig, scratch, ROOT } from '../helpers/cli.js';
import { tcpListeners, readMigrateReq } from '../../src/proc/listeners.js';
import { reusePortBlocker } from '../../src/core/reuse-port.js';

const MIGRATE = '/proc/sys/net/ipv4/tcp_migrate_req';
const nodeHasIt = reusePortBlocker({ node: process.versions.node, migrateReq: 1 }) === null;

// The kernel setting for this file's tests, put back after: only where this user may write it.
function setMigrateReq(t, value) {
  const before = readMigrateReq();
  if (before === value) return true;
  try {
    fs.writeFileSync(MIGRATE, String(value));
  } catch {
    return false;
  }
  t.teardown(() => { try { fs.writeFileSync(MIGRATE, String(before)); } catch { /* as found */ } });
  return true;
}

const listenersOn = (port) => tcpListeners().filter((l) => l.port === port);

function connLoad(port, { connections, duration }) {
  return execa(process.execPath, [path.join(ROOT, 'bench/lib/conn-load.js'), JSON.stringify({ url: `http://127.0.0.1:${port}/`, connections, duration, keepAlive: false })])
    .then((r) => JSON.parse(r.stdout));
}

const testWithKernel = nodeHasIt ? test.serial : test.serial.skip;
testWithKernel(`reuse-port (Node ${process.versions.node}): memory recycles and a reload under a new connection per request and keep-alive load: 0 failed, none forced`, async (t) => {
  t.timeout(180_000);
  if (!setMigrateReq(t, 1)) return t.fail(`cannot set ${MIGRATE} to 1 here (not root?): run this file as root`);
  const port = await freePort();
  const cfg = writeConfig(t, { workers: 2, metrics: false, balance: 'reuse-port', pollInterval: '500ms', limits: { rss: '120mb' }, leak: false, recycle: { killTimeout: '20s' } });
  const run = startCli(t, [app('leaky-http.js'), '-c', cfg], { env: { PORT: String(port), LEAK_KB: '8' } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });
  t.falsy(run.events.find((e) => e.event === 'config.default' && e.key === 'balance'), 'no fallback');
  // Each worker holds its own listening socket; under round-robin only the primary holds one.
  t.is(new Set(listenersOn(port).map((l) => l.inode)).size, 2, 'two listening sockets on the port, one per worker');
  if (typeof process.execve === 'function') {
    const args = fs.readFileSync(`/proc/${run.child.pid}/cmdline`, 'utf8').split('\0');
    t.true(args.includes('--lite-mode'), `the primary routes no connection: the lean primary runs without the JIT (${args.join(' ')})`);
  }

  const perRequest = connLoad(port, { connections: 16, duration: 24 });
  const keepAlive = accountedLoad({ url: `http://127.0.0.1:${port}/`, connections: 8, duration: 24 });
  t.teardown(() => keepAlive.instance.stop());
  await run.waitFor((e) => e.event === 'worker.recycle' && e.reason === 'rss', { what: 'a memory recycle', timeout: 60_000 });
  const reload = await runCli(['reload', '--json'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(reload.exitCode, 0, reload.stderr);
  const [conn, ka] = await Promise.all([perRequest, keepAlive.result]);

  const recycles = run.events.filter((e) => e.event === 'worker.recycle');
  t.log(`new connection per request: ${conn.requests} ok, ${conn.failed} failed ${JSON.stringify(conn.why)}; keep-alive: ${ka.responses} ok, ${ka.failed} failed; recycles: ${recycles.map((e) => e.reason).join(', ')}`);
  t.true(conn.requests > 500 && ka.responses > 500, 'both loads ran');
  t.true(recycles.filter((e) => e.reason === 'rss').length >= 1 && recycles.filter((e) => e.reason === 'reload').length === 2, 'a memory recycle and a reload of both slots');
  t.is(conn.failed, 0, `no connection refused or reset: ${JSON.stringify(conn.why)}`);
  t.is(ka.failed, 0, 'no keep-alive request failed or was lost');
  t.is(ka.unaccounted, 0);

  const pids = [...run.pids];
  run.child.kill('SIGTERM');
  const done = await run.exited;
  t.is(done.exitCode, 0);
  t.deepEqual(await waitGone(pids), [], 'every worker ever started is gone');
  if (done.stderr) t.log(done.stderr.slice(-2000));
  const exits = run.events.filter((e) => e.event === 'worker.exit');
  t.true(exits.length >= 5, `${exits.length} exits`);
  t.deepEqual(exits.filter((e) => !e.planned || e.forced).map((e) => e.msg), [], 'every exit planned, none forced');
  t.deepEqual(listenersOn(port), [], 'nothing listens on the port after the stop');
});

test.serial('reuse-port where the host cannot keep its promise: said once as a warning, and round-robin serves', async (t) => {
  // Node 20 has no reusePort; on a later line the kernel setting decides, set to 0 here.
  if (nodeHasIt && !setMigrateReq(t, 0)) return t.fail(`cannot set ${MIGRATE} to 0 here (not root?)`);
  const port = await freePort();
  const cfg = writeConfig(t, { workers: 2, metrics: false, balance: 'reuse-port', leak: false });
  const run = startCli(t, [app('http.js'), '-c', cfg], { env: { PORT: String(port) } });
  const said = await run.waitFor((e) => e.event === 'config.default' && e.key === 'balance', { what: 'the fallback said' });
  t.like(said, { level: 40, value: 'round-robin', requested: 'reuse-port', reason: nodeHasIt ? 'tcp_migrate_req' : 'node' });
  t.regex(said.msg, /not 'reuse-port'/);
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  t.is(listenersOn(port).length, 1, 'one listening socket: the primary\'s, as round-robin has it');
  t.is(run.count((e) => e.event === 'config.default' && e.key === 'balance'), 1, 'said once');
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('reuse-port is refused for an app that depends on socket.io: one line, exit 2, nothing started', async (t) => {
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'chat', dependencies: { 'socket.io': '^4.8.0' } }));
  fs.copyFileSync(app('http.js'), path.join(dir, 'server.js'));
  fs.writeFileSync(path.join(dir, 'supervisor.config.mjs'), "export default { script: './server.js', balance: 'reuse-port', metrics: false };\n");
  const r = await runCli(['start'], { cwd: dir, env: { NODESUP_RUN_DIR: dir, PORT: String(await freePort()) } });
  t.is(r.exitCode, 2);
  const lines = r.stderr.trim().split('\n');
  t.is(lines.length, 1, r.stderr);
  t.regex(lines[0], /reuse-port.*socket\.io.*balance: 'sticky'/);
  t.false(r.stdout.includes('worker.spawn'), 'no worker started');
});

const testStranger = nodeHasIt ? test.serial : test.serial.skip;
testStranger(`reuse-port (Node ${process.versions.node}): a stranger listening on the port with SO_REUSEPORT is named, not silently shared`, async (t) => {
  if (!setMigrateReq(t, 1)) return t.fail(`cannot set ${MIGRATE} to 1 here (not root?)`);
  const port = await freePort();
  const stranger = execa(process.execPath, ['-e', `require('net').createServer().listen({ port: ${port}, host: '127.0.0.1', reusePort: true }, () => console.log('up'))`], { reject: false });
  t.teardown(() => stranger.kill('SIGKILL'));
  await new Promise((resolve) => stranger.stdout.once('data', resolve));
  const cfg = writeConfig(t, { workers: 1, metrics: false, balance: 'reuse-port', leak: false, restart: { maxCrashes: 1 } });
  const run = startCli(t, [app('http.js'), '-c', cfg], { env: { PORT: String(port) } });
  const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.code === 1, { what: 'the worker refused the port' });
  t.false(exit.planned);
  const done = await run.exited;
  t.regex(done.stderr, new RegExp(`EADDRINUSE: 127\\.0\\.0\\.1:${port} is held by pid ${stranger.pid}`));
  t.is(listenersOn(port).length, 1, 'only the stranger listens: nodesup never joined its port');
});
