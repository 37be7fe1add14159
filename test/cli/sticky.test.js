// balance: 'sticky' with a socket.io app, unchanged, and real socket.io clients on both
// transports: a broadcast from one worker reaches every client, and through a memory recycle and a
// reload no client meets an HTTP 400 ("Session ID unknown"), no worker is forced, every client is
// back, and every message sent with client retries is acknowledged. And the first bytes the primary
// reads to route a connection reach the app exactly as the client sent them.
import test from 'ava';
import net from 'node:net';
import crypto from 'node:crypto';
import { startCli, runCli, app, freePort, writeConfig } from '../helpers/cli.js';
import { sioClient, until } from '../helpers/sio.js';

const CLIENTS = 8;

test('sticky: polling and websocket clients through a memory recycle and a reload: 0 HTTP 400s, no forced kill, every client back', async (t) => {
  t.timeout(180_000);
  const port = await freePort();
  const cfg = writeConfig(t, {
    workers: 2, metrics: false, balance: 'sticky', stickyHeader: 'x-forwarded-for', limits: { rss: '200mb' },
    recycle: { killTimeout: '20s' }, leak: false,
  });
  const run = startCli(t, [app('socketio.js'), '-c', cfg], { env: { PORT: String(port), SOCKETIO_CLUSTER: '1' } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });

  // Each client has its own address (behind a proxy, as X-Forwarded-For says), so they spread.
  const clients = Array.from({ length: CLIENTS }, (_, i) => sioClient(`http://127.0.0.1:${port}`, {
    transports: i % 2 ? ['websocket'] : ['polling'], extraHeaders: { 'x-forwarded-for': `10.0.0.${i + 1}` },
    retries: 20, ackTimeout: 2000,
  }));
  t.teardown(() => { for (const c of clients) c.socket.disconnect(); });
  await until(() => clients.every((c) => c.pids.length === 1), 'every client greeted');
  const first = new Set(clients.map((c) => c.pids[0]));
  t.is(first.size, 2, 'clients on both workers');

  // Every client sends a numbered message every 50 ms, acknowledged; with retries none is lost.
  let stopped = false;
  const sent = clients.map(() => 0);
  const acked = clients.map(() => new Set());
  const senders = clients.map(async (c, i) => {
    while (!stopped) {
      const n = sent[i]++;
      const r = await c.socket.emitWithAck('echo', n).catch(() => null);
      if (r?.msg === n) acked[i].add(n);
      await new Promise((res) => setTimeout(res, 50));
    }
  });

  const shout = async (what) => {
    const before = clients.map((c) => c.heard.length);
    await clients[0].socket.emitWithAck('shout', what);
    await until(() => clients.every((c, i) => c.heard.length > before[i]), `every client heard ${what}`);
    for (const c of clients) t.is(c.heard.at(-1).msg, what);
  };
  await shout('before');

  // A memory recycle: one worker holds 250 MiB, over limits.rss.
  const bloated = clients[0].pids[0];
  await clients[0].socket.emitWithAck('bloat', 250);
  await run.waitFor((e) => e.event === 'worker.recycle' && e.pid === bloated && e.reason === 'rss', { what: 'an rss recycle' });
  const rssExit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === bloated, { what: 'the bloated worker exit' });
  t.like(rssExit, { planned: true, forced: false }, JSON.stringify(rssExit));

  const before = new Set((await run.status()).slots.map((s) => s.pid));
  const r = await runCli(['reload'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(r.exitCode, 0, r.stderr);
  const exits = run.events.filter((e) => e.event === 'worker.exit' && before.has(e.pid));
  t.is(exits.length, 2);
  for (const e of exits) t.like(e, { planned: true, forced: false }, JSON.stringify(e));

  const now = new Set((await run.status()).slots.map((s) => s.pid));
  await until(() => clients.every((c) => c.socket.connected && now.has(c.pids.at(-1))), 'every client back on a new worker', 60_000);
  await shout('after');
  stopped = true;
  await Promise.all(senders);

  for (const [i, c] of clients.entries()) if (c.errors.length) t.log(`client ${i} ${c.pids}: ${JSON.stringify(c.errors)}`);
  t.is(run.count((e) => e.code === 'sticky-sessions'), 0, 'no advice to use what is in use');
  for (const [i, c] of clients.entries()) {
    t.is(c.http400, 0, `client ${i}: no HTTP 400`);
    t.true(c.disconnects.every((reason) => reason === 'transport close'), `client ${i} closed by the server only: ${c.disconnects}`);
    t.is(acked[i].size, sent[i], `client ${i}: every message acknowledged (${acked[i].size} of ${sent[i]})`);
  }
  t.log(`${CLIENTS} clients, ${sent.reduce((a, b) => a + b)} messages, drains ${[rssExit, ...exits].map((e) => e.drainMs).join(', ')} ms, reconnects ${clients.map((c) => c.connects - 1).join(' ')}`);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

// One write: a head with a header of bytes 0x80-0xff and a body of every byte value, so the first
// chunk the primary reads carries all of them to the worker with the socket.
function rawPost(port, header, body) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const head = Buffer.from(`POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${body.length}\r\nX-Raw: `, 'latin1');
    let out = '';
    sock.on('data', (c) => { out += c.toString('latin1'); });
    sock.on('end', () => resolve(out));
    sock.on('error', reject);
    sock.on('connect', () => sock.write(Buffer.concat([head, header, Buffer.from('\r\n\r\n'), body])));
  });
}

test('sticky: the first bytes reach the app byte for byte, header bytes 0x80-0xff and a body of every byte value', async (t) => {
  t.timeout(60_000);
  const port = await freePort();
  const cfg = writeConfig(t, { workers: 2, metrics: false, balance: 'sticky', leak: false });
  const run = startCli(t, [app('echo-bytes.js'), '-c', cfg], { env: { PORT: String(port) } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  const header = Buffer.from(Array.from({ length: 128 }, (_, i) => 0x80 + i));
  const body = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), crypto.randomBytes(3000)]);
  const reply = await rawPost(port, header, body);
  const [, text] = reply.split('\r\n\r\n');
  const [sha, raw] = text.trim().split(' ');
  t.is(sha, crypto.createHash('sha256').update(body).digest('hex'), reply);
  t.is(raw, header.toString('hex'), reply);
});
