// One connection under abuse: raw sockets, garbage, huge lines, clients that never read.

import { once } from 'node:events';
import net from 'node:net';
import test from 'ava';
import { request } from '../../src/control/client.js';
import { CONTROL_VERSION } from '../../src/control/protocol.js';
import { fakeHandlers, rawClient, recordingReport, startServer, tmpRunDir } from './_helpers.js';

test('garbage gets an error reply and the connection keeps serving', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startServer(t, { dir });
  const c = await rawClient(t, server.path);
  c.send('this is not json {');
  c.send({ v: 1, id: 7, op: 'ping' });
  // A line with no version of its own is answered in the server's.
  t.deepEqual(await c.next(), { v: CONTROL_VERSION, id: null, ok: false, error: { code: 'NODESUP_ERR_CONTROL', message: 'bad request: not JSON' } });
  t.like(await c.next(), { v: 1, id: 7, ok: true, result: { pong: true } });
});

test('malformed requests each get an error reply carrying their id when there is one', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startServer(t, { dir });
  const c = await rawClient(t, server.path);
  const cases = [
    [{ v: 3, id: 1, op: 'ping' }, 1, /protocol version 3, expected 1 to 2/],
    [{ v: 0, id: 1, op: 'ping' }, 1, /protocol version 0, expected 1 to 2/],
    [{ v: '2', id: 1, op: 'ping' }, 1, /protocol version "2", expected 1 to 2/],
    [{ v: 2, id: 2, op: 'ping', accept: 'progress' }, 2, /accept must be an array of strings/],
    [{ v: 1, op: 'ping' }, null, /missing id/],
    [{ v: 1, id: 'x', op: 'nope' }, 'x', /unknown op "nope"/],
    [{ v: 1, id: 3, op: 'status', args: [1] }, 3, /args must be an object/],
    [[1, 2], null, /expected a JSON object/],
    ['null', null, /expected a JSON object/],
    ['42', null, /expected a JSON object/],
  ];
  for (const [req, id, message] of cases) {
    c.send(typeof req === 'string' ? req : JSON.stringify(req));
    const reply = await c.next();
    t.is(reply.id, id);
    t.false(reply.ok);
    t.is(reply.error.code, 'NODESUP_ERR_CONTROL');
    t.regex(reply.error.message, message);
  }
  c.send('');
  c.send({ v: 1, id: 9, op: 'ping' });
  t.like(await c.next(), { id: 9, ok: true }, 'blank lines are ignored');
});

test('CRLF lines and a UTF-8 id split across writes are read like any other', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startServer(t, { dir });
  const c = await rawClient(t, server.path);
  c.sock.write(`${JSON.stringify({ v: 1, id: 'a', op: 'ping' })}\r\n`);
  t.like(await c.next(), { id: 'a', ok: true });
  const line = Buffer.from(`${JSON.stringify({ v: 1, id: 'slot-€', op: 'ping' })}\n`);
  const cut = line.indexOf(Buffer.from('€')) + 1; // inside the three bytes of '€'
  c.sock.write(line.subarray(0, cut));
  await new Promise((resolve) => setImmediate(resolve));
  c.sock.write(line.subarray(cut));
  t.like(await c.next(), { id: 'slot-€', ok: true });
});

test('many requests pipelined on one connection are all answered', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startServer(t, { dir });
  const c = await rawClient(t, server.path);
  const n = 1000;
  c.sock.write(Array.from({ length: n }, (_, i) => JSON.stringify({ v: 1, id: i, op: i % 2 ? 'ping' : 'status' })).join('\n') + '\n');
  const ids = new Set();
  for (let i = 0; i < n; i++) {
    const reply = await c.next();
    t.true(reply.ok);
    ids.add(reply.id);
  }
  t.is(ids.size, n);
});

test('a client that half-closes after its request still gets the answer', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startServer(t, { dir });
  const c = await rawClient(t, server.path);
  c.sock.end(JSON.stringify({ v: 1, id: 1, op: 'reload' })); // no trailing newline, like `printf … | nc -U`
  t.like(await c.next(), { id: 1, ok: true, result: { reloaded: 2 } });
  await c.closed;
});

test('200 clients at once', async (t) => {
  const dir = await tmpRunDir(t);
  await startServer(t, { dir });
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => request({ name: 'api', dir, op: i % 2 ? 'status' : 'recycle', args: { slot: i } })),
  );
  t.is(results.length, 200);
  results.forEach((r, i) => (i % 2 ? t.is(r.name, 'api') : t.is(r.slot, i)));
});

test('a 10 MB line without a newline gets its connection dropped; everyone else is served', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startServer(t, { dir });
  const bystander = await rawClient(t, server.path);
  const flooder = await rawClient(t, server.path);
  flooder.sock.write(Buffer.alloc(10 * 1024 * 1024, 'a'));
  await flooder.closed;
  // The error reply is best effort: a reset can overtake it while the flooder is still writing.
  for (const reply of flooder.received) t.like(reply, { ok: false, error: { code: 'NODESUP_ERR_CONTROL' } });
  bystander.send({ v: 1, id: 1, op: 'ping' });
  t.like(await bystander.next(), { id: 1, ok: true });
  t.true((await request({ name: 'api', dir, op: 'ping' })).pong);
});

test('a line just over 1 MiB gets an error reply, then the connection closes', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startServer(t, { dir });
  const c = await rawClient(t, server.path);
  c.sock.write(Buffer.alloc(1024 * 1024 + 100, 'a'));
  const reply = await c.next();
  t.like(reply, { id: null, ok: false, error: { code: 'NODESUP_ERR_CONTROL' } });
  t.regex(reply.error.message, /line longer than 1048576 bytes/);
  await c.closed;
});

test('a client that never reads is dropped once its backlog is too big; memory stays bounded', async (t) => {
  const dir = await tmpRunDir(t);
  const big = { slots: Array.from({ length: 2000 }, (_, slot) => ({ slot, history: Array(64).fill(123456789) })) };
  const handlers = fakeHandlers({ status: () => (handlers.calls.push(['status']), big) });
  const log = recordingReport();
  const server = await startServer(t, { dir, handlers, report: log.report });
  t.true(JSON.stringify(big).length > 1024 * 1024, 'each reply is over 1 MiB');

  const sock = net.connect(server.path);
  t.teardown(() => sock.destroy());
  sock.on('error', () => {});
  await once(sock, 'connect');
  sock.pause(); // never read (so we would not even notice the close)
  const sent = 200;
  sock.write(Array.from({ length: sent }, (_, i) => JSON.stringify({ v: 1, id: i, op: 'status' })).join('\n') + '\n');
  await log.waitFor('warn', /does not read its replies/);

  // Replies stop being produced once the backlog passes 4 MiB: far fewer than were asked for.
  t.true(handlers.calls.length < 40, `status ran ${handlers.calls.length} times`);
  t.is(server.connections, 0);
  t.true((await request({ name: 'api', dir, op: 'ping' })).pong, 'the server stays up');
});

test('a client that never reads small replies is throttled, not buffered', async (t) => {
  const dir = await tmpRunDir(t);
  const handlers = fakeHandlers();
  const log = recordingReport();
  // 1 s, not less: the ping below shares this process's loop with the server still working
  // through what it read of the flood, and on a loaded 2-core host a shorter idle timeout closed
  // the ping's connection before its request was read.
  const server = await startServer(t, { dir, handlers, report: log.report, limits: { idleTimeoutMs: 1000 } });
  const sock = net.connect(server.path);
  t.teardown(() => sock.destroy());
  sock.on('error', () => {});
  await once(sock, 'connect');
  sock.pause(); // never read
  const asked = 250_000; // ~10 MB of requests, ~25 MB of replies if the server answered them all
  sock.write(JSON.stringify({ v: 1, id: 1, op: 'status' }).concat('\n').repeat(asked));
  // The server stopped reading from us, so the connection went idle and timed out.
  await log.waitFor('debug', /idle; disconnected/);
  t.true(handlers.calls.length < asked / 10, `answered ${handlers.calls.length} of ${asked}`);
  t.true((await request({ name: 'api', dir, op: 'ping' })).pong);
});

test('idle connections time out', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startServer(t, { dir, limits: { idleTimeoutMs: 50 } });
  const c = await rawClient(t, server.path);
  await c.closed;
  t.is(server.connections, 0);
});

test('close() drops connected clients', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startServer(t, { dir });
  const a = await rawClient(t, server.path);
  const b = await rawClient(t, server.path);
  for (const c of [a, b]) {
    c.send({ v: 1, id: 1, op: 'ping' });
    await c.next(); // the server has certainly accepted it now
  }
  t.is(server.connections, 2);
  await server.close();
  await Promise.all([a.closed, b.closed]);
  t.is(server.connections, 0);
  t.true(a.sock.destroyed && b.sock.destroyed, 'both clients saw their connection end');
  await t.throwsAsync(request({ name: 'api', dir, op: 'ping' }), { code: 'NODESUP_ERR_NOT_RUNNING' }, 'and nobody listens any more');
});
