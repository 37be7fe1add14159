import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { request } from '../../src/control/client.js';
import { NodesupError } from '../../src/errors.js';
import { startControlServer } from '../../src/control/server.js';
import { socketPath } from '../../src/control/run-dir.js';
import { fakeHandlers, makeStaleSocket, rawClient, startServer, tmpRunDir } from './_helpers.js';

test('the server creates the run dir 0700 and the socket 0600', async (t) => {
  const base = await tmpRunDir(t);
  const dir = path.join(base, 'run');
  const server = await startServer(t, { dir });
  t.is(server.path, path.join(dir, 'api.sock'));
  t.is((await fs.stat(dir)).mode & 0o777, 0o700);
  const st = await fs.stat(server.path);
  t.true(st.isSocket());
  t.is(st.mode & 0o777, 0o600);
});

test('the socket is 0600 under a lax umask, and the umask is restored', async (t) => {
  const dir = await tmpRunDir(t);
  const before = process.umask(0);
  t.teardown(() => process.umask(before));
  const server = await startServer(t, { dir });
  t.is(process.umask(before), 0);
  t.is((await fs.stat(server.path)).mode & 0o777, 0o600);
});

test('of several supervisors starting at once with one name, exactly one wins', async (t) => {
  const dir = await tmpRunDir(t);
  await makeStaleSocket(socketPath(dir, 'api'));
  const results = await Promise.allSettled(Array.from({ length: 8 }, () => startControlServer({ name: 'api', dir, handlers: fakeHandlers() })));
  const won = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
  t.teardown(() => Promise.all(won.map((s) => s.close())));
  t.is(won.length, 1);
  for (const r of results.filter((r) => r.status === 'rejected')) t.is(r.reason.code, 'NODESUP_ERR_ALREADY_RUNNING');
  t.true((await request({ name: 'api', dir, op: 'ping' })).pong);
  t.deepEqual(await fs.readdir(dir), ['api.sock']);
});

test('a stale socket left by a killed supervisor is replaced', async (t) => {
  const dir = await tmpRunDir(t);
  const stale = socketPath(dir, 'api');
  await makeStaleSocket(stale);
  const server = await startServer(t, { dir });
  t.deepEqual((await request({ name: 'api', dir, op: 'ping' })).pong, true);
  t.is(server.path, stale);
});

test('a second server with the same name is refused; the first keeps serving', async (t) => {
  const dir = await tmpRunDir(t);
  await startServer(t, { dir });
  const err = await t.throwsAsync(startControlServer({ name: 'api', dir, handlers: fakeHandlers() }), {
    instanceOf: NodesupError,
    code: 'NODESUP_ERR_ALREADY_RUNNING',
  });
  t.regex(err.message, /^a supervisor named "api" is already running \(socket .*api\.sock\); stop it or pass --name$/);
  t.deepEqual(await fs.readdir(dir), ['api.sock'], 'the refused server leaves nothing behind');
  t.is((await request({ name: 'api', dir, op: 'ping' })).name, 'api');
});

test('a server with another name in the same dir is fine', async (t) => {
  const dir = await tmpRunDir(t);
  await startServer(t, { dir, name: 'api' });
  await startServer(t, { dir, name: 'worker' });
  t.is((await request({ name: 'worker', dir, op: 'ping' })).name, 'worker');
});

test('a non-socket file in the way is not deleted', async (t) => {
  const dir = await tmpRunDir(t);
  await fs.writeFile(path.join(dir, 'api.sock'), 'keep me');
  await t.throwsAsync(startControlServer({ name: 'api', dir, handlers: fakeHandlers() }), {
    code: 'NODESUP_ERR_CONTROL',
    message: /is not a socket; remove it or pass --name/,
  });
  t.is(await fs.readFile(path.join(dir, 'api.sock'), 'utf8'), 'keep me');
});

test('close() unlinks the socket and is idempotent', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startControlServer({ name: 'api', dir, handlers: fakeHandlers() });
  await Promise.all([server.close(), server.close()]);
  await t.throwsAsync(fs.stat(server.path), { code: 'ENOENT' });
});

test('close() leaves a socket that a newer supervisor put in its place', async (t) => {
  const dir = await tmpRunDir(t);
  const old = await startControlServer({ name: 'api', dir, handlers: fakeHandlers() });
  await fs.unlink(old.path); // as if someone removed it and a new supervisor started
  await startServer(t, { dir });
  await old.close();
  t.is((await request({ name: 'api', dir, op: 'ping' })).pid, process.pid);
});

test('every op round-trips to its handler', async (t) => {
  const dir = await tmpRunDir(t);
  const handlers = fakeHandlers();
  await startServer(t, { dir, handlers });
  const call = (op, args) => request({ name: 'api', dir, op, args });
  t.deepEqual(await call('ping'), { pong: true, pid: process.pid, name: 'api' });
  t.deepEqual(await call('status'), { name: 'api', pid: process.pid, slots: [{ slot: 0, state: 'ready' }] });
  t.deepEqual(await call('reload'), { reloaded: 2 });
  t.deepEqual(await call('recycle', { slot: 1 }), { slot: 1, reason: 'manual' });
  t.deepEqual(await call('inspect', { slot: 0, heapSnapshot: true }), { slot: 0, heapSnapshot: true, advice: [] });
  t.deepEqual(await call('stop'), { stopped: true }, 'a stop answers with what its handler did');
  t.deepEqual(handlers.calls, [
    ['status'],
    ['reload'],
    ['recycle', { slot: 1 }],
    ['inspect', { slot: 0, heapSnapshot: true }],
    ['stop'],
  ]);
});

test('a stop answers once its handler is done, with what it did, even when the handler closes the server', async (t) => {
  const dir = await tmpRunDir(t);
  let server;
  const handlers = fakeHandlers({
    async stop() {
      await new Promise((resolve) => setImmediate(resolve));
      server.close(); // what the supervisor does on its way out, just before the stop's answer
      return { stopped: true, workers: [{ slot: 0, pid: 42 }] };
    },
  });
  server = await startControlServer({ name: 'api', dir, handlers });
  t.deepEqual(await request({ name: 'api', dir, op: 'stop' }), { stopped: true, workers: [{ slot: 0, pid: 42 }] });
  await t.throwsAsync(request({ name: 'api', dir, op: 'ping' }), { code: 'NODESUP_ERR_NOT_RUNNING' });
});

test('a version 1 stop answers before its handler runs, even when the handler closes the server', async (t) => {
  const dir = await tmpRunDir(t);
  let server;
  let stopped;
  const handlerRan = new Promise((resolve) => (stopped = resolve));
  const handlers = fakeHandlers({
    stop() {
      server.close(); // what the supervisor does on its way out
      stopped();
    },
  });
  server = await startControlServer({ name: 'api', dir, handlers });
  const c = await rawClient(t, server.path);
  c.send({ v: 1, id: 1, op: 'stop' });
  t.deepEqual(await c.next(), { v: 1, id: 1, ok: true, result: { stopping: true } });
  await handlerRan;
  await t.throwsAsync(request({ name: 'api', dir, op: 'ping' }), { code: 'NODESUP_ERR_NOT_RUNNING' });
});

test('a stop handler that throws does not crash the primary: version 1 logs it, version 2 answers it', async (t) => {
  const dir = await tmpRunDir(t);
  let failed;
  const done = new Promise((resolve) => (failed = resolve));
  const report = (level, fields) => level === 'error' && failed(fields.err);
  const server = await startControlServer({
    name: 'api',
    dir,
    report,
    handlers: fakeHandlers({ stop: () => Promise.reject(new Error('boom')) }),
  });
  t.teardown(() => server.close());
  const c = await rawClient(t, server.path);
  c.send({ v: 1, id: 1, op: 'stop' });
  t.like(await c.next(), { v: 1, id: 1, ok: true, result: { stopping: true } });
  t.is((await done).message, 'boom');
  await t.throwsAsync(request({ name: 'api', dir, op: 'stop' }), { code: 'NODESUP_ERR_CONTROL', message: 'boom' });
  t.true((await request({ name: 'api', dir, op: 'ping' })).pong);
});

test('handler errors: a coded one keeps its code, anything else becomes NODESUP_ERR_CONTROL', async (t) => {
  const dir = await tmpRunDir(t);
  const handlers = fakeHandlers({
    recycle: ({ slot }) => {
      throw new NodesupError('NODESUP_ERR_USAGE', `slot ${slot} does not exist; slots are 0..1`);
    },
    reload: async () => {
      throw new Error('reload already in progress\nsecond line with a stack-ish detail');
    },
    inspect: () => {
      throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    },
    status: () => {
      throw 'a string'; // eslint-disable-line no-throw-literal
    },
  });
  await startServer(t, { dir, handlers });
  const call = (op, args) => request({ name: 'api', dir, op, args });
  await t.throwsAsync(call('recycle', { slot: 9 }), { code: 'NODESUP_ERR_USAGE', message: 'slot 9 does not exist; slots are 0..1' });
  await t.throwsAsync(call('reload'), { code: 'NODESUP_ERR_CONTROL', message: 'reload already in progress' });
  await t.throwsAsync(call('inspect', { slot: 0 }), { code: 'NODESUP_ERR_CONTROL', message: 'no such file' });
  await t.throwsAsync(call('status'), { code: 'NODESUP_ERR_CONTROL', message: 'a string' });
  t.true((await call('ping')).pong, 'the server survived all of them');
});

test('odd throwables: prototype-named codes and objects without toString', async (t) => {
  const dir = await tmpRunDir(t);
  const handlers = fakeHandlers({
    reload: () => Promise.reject(Object.assign(new Error('sneaky'), { code: 'toString' })),
    status: () => {
      throw Object.create(null); // eslint-disable-line no-throw-literal
    },
  });
  await startServer(t, { dir, handlers });
  await t.throwsAsync(request({ name: 'api', dir, op: 'reload' }), { code: 'NODESUP_ERR_CONTROL', message: 'sneaky' });
  await t.throwsAsync(request({ name: 'api', dir, op: 'status' }), { code: 'NODESUP_ERR_CONTROL', message: 'status failed' });
});

test('a result that cannot be serialised is an error reply, not a crash', async (t) => {
  const dir = await tmpRunDir(t);
  await startServer(t, { dir, handlers: fakeHandlers({ status: () => ({ big: 1n }) }) });
  await t.throwsAsync(request({ name: 'api', dir, op: 'status' }), { code: 'NODESUP_ERR_CONTROL', message: /BigInt/ });
});

test('recycle and inspect need a slot number; a missing handler is an error reply', async (t) => {
  const dir = await tmpRunDir(t);
  const handlers = fakeHandlers();
  delete handlers.inspect;
  await startServer(t, { dir, handlers });
  // The one slot rule of the CLI and the supervisor (src/slot.js), so the same words.
  await t.throwsAsync(request({ name: 'api', dir, op: 'recycle', args: {} }), { code: 'NODESUP_ERR_USAGE', message: 'recycle: slot: expected a whole number 0..N-1, got undefined' });
  await t.throwsAsync(request({ name: 'api', dir, op: 'recycle', args: { slot: 'one' } }), { code: 'NODESUP_ERR_USAGE', message: /got "one"$/ });
  await t.throwsAsync(request({ name: 'api', dir, op: 'recycle', args: { slot: -1 } }), { code: 'NODESUP_ERR_USAGE' });
  await t.throwsAsync(request({ name: 'api', dir, op: 'recycle', args: { slot: 1.5 } }), { code: 'NODESUP_ERR_USAGE' });
  await t.throwsAsync(request({ name: 'api', dir, op: 'inspect', args: { slot: 0 } }), { code: 'NODESUP_ERR_CONTROL', message: /not supported/ });
  t.deepEqual(handlers.calls, []);
  // As on the command line, "2" is slot 2, and the handler gets the number.
  t.deepEqual(await request({ name: 'api', dir, op: 'recycle', args: { slot: '2' } }), { slot: 2, reason: 'manual' });
  t.deepEqual(handlers.calls, [['recycle', { slot: 2 }]]);
});

test('an unknown op is an error reply', async (t) => {
  const dir = await tmpRunDir(t);
  await startServer(t, { dir });
  await t.throwsAsync(request({ name: 'api', dir, op: 'explode' }), { code: 'NODESUP_ERR_CONTROL', message: /unknown op "explode"/ });
});
