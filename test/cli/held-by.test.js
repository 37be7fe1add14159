// A worker that outlives its drain is killed at killTimeout, and its exit says what held it: the
// open requests by method and path with their age, and the upgraded sockets.
import test from 'ava';
import http from 'node:http';
import net from 'node:net';
import { startCli, runCli, app, freePort, writeConfig } from '../helpers/cli.js';
import { readFdLinks, readSockets } from '../../src/proc/fds.js';

test('a forced exit names the request and the upgraded socket that held the worker', async (t) => {
  t.timeout(90_000);
  const port = await freePort();
  const cfg = writeConfig(t, { workers: 1, metrics: false, recycle: { killTimeout: '1500ms' } });
  const run = startCli(t, [app('held.js'), '-c', cfg], { env: { PORT: String(port) } });
  const ready = await run.waitFor((e) => e.event === 'worker.ready', { what: 'worker ready' });

  // A request never answered, and a socket upgraded to a protocol nodesup knows nothing of.
  const hang = http.get({ host: '127.0.0.1', port, path: '/hang?token=secret' });
  hang.on('error', () => {});
  const upgraded = await new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write('GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: hold\r\n\r\n'));
    s.once('data', (d) => (String(d).startsWith('HTTP/1.1 101') ? resolve(s) : reject(new Error(String(d)))));
    s.on('error', () => {});
  });
  t.teardown(() => { hang.destroy(); upgraded.destroy(); });

  const r = await runCli(['recycle', '0'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(r.exitCode, 0, r.stderr);
  const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === ready.pid, { what: 'the old worker exit' });
  t.like(exit, { planned: true, forced: true });
  t.is(exit.heldBy.upgraded, 1);
  t.is(exit.heldBy.openRequests, 1);
  t.like(exit.heldBy.requests[0], { method: 'GET', path: '/hang' }, 'the path without its query');
  t.true(exit.heldBy.requests[0].ageMs >= 1500, `held since before the drain: ${exit.heldBy.requests[0].ageMs} ms`);
  t.regex(exit.msg, /held by 1 open request \(oldest GET \/hang [\d.]+ s\), 1 upgraded socket/);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

// Three connections opened and never written to (a preconnect, a leaked client socket, a TCP
// health probe), on one worker with killTimeout 40 s; `handedOver` resolves once the primary has
// given them to that worker. Then a recycle: the old worker leaves unforced and the three are closed.
async function unusedThroughRecycle(t, handedOver) {
  t.timeout(120_000);
  const port = await freePort();
  const cfg = writeConfig(t, { workers: 1, metrics: false, recycle: { killTimeout: '40s' } });
  const run = startCli(t, [app('http.js'), '-c', cfg], { env: { PORT: String(port) } });
  const ready = await run.waitFor((e) => e.event === 'worker.ready', { what: 'worker ready' });
  const unused = await Promise.all([0, 1, 2].map(() => new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  })));
  const closed = unused.map((s) => new Promise((resolve) => s.on('close', resolve)));
  t.teardown(() => { for (const s of unused) s.destroy(); });
  await handedOver({ port, pid: ready.pid, ports: unused.map((s) => s.localPort) });

  const r = await runCli(['recycle', '0'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(r.exitCode, 0, r.stderr);
  const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === ready.pid, { what: 'the old worker exit', timeout: 90_000 });
  t.like(exit, { planned: true, forced: false, code: 0 });
  await Promise.all(closed);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
}

test('a connection that never sent a byte does not hold the drain: closed after the idle grace, the worker leaves unforced', (t) => unusedThroughRecycle(t, async ({ port, pid }) => {
  // Accepted after them, on the one worker, and answered: the primary has handed the three over.
  const body = await new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      let b = '';
      res.on('data', (c) => { b += c; });
      res.on('end', () => resolve(b));
    }).on('error', reject);
  });
  t.is(body, `ok ${pid}\n`);
}));

// The worker's accepted TCP connections whose client end is one of `ports`, read from /proc.
async function acceptedFrom(pid, ports) {
  const inodes = new Set((readFdLinks(pid) ?? []).filter((l) => l.startsWith('socket:[')).map((l) => l.slice(8, -1)));
  const sockets = await readSockets(pid, inodes);
  return [...sockets.values()].filter((s) => s.state === 'ESTABLISHED' && ports.some((p) => s.remote?.endsWith(`:${p}`))).length;
}

// A load balancer's preconnects, reaching a worker before any request has.
test('a worker that never served a request is not held by connections that never sent a byte', (t) => unusedThroughRecycle(t, async ({ pid, ports }) => {
  // No request to tell the hand-over by: the worker's own fds hold all three.
  let held = 0;
  for (const deadline = Date.now() + 30_000; held < 3 && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    held = await acceptedFrom(pid, ports);
  }
  t.is(held, 3, 'the worker holds the three connections');
}));
