import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import test from 'ava';
import { testAsRoot } from '../helpers/tools.js';
import { connect, request } from '../../src/control/client.js';
import { NodesupError } from '../../src/errors.js';
import { startControlServer } from '../../src/control/server.js';
import { socketPath } from '../../src/control/run-dir.js';
import { fakeHandlers, makeStaleSocket, startServer, tmpRunDir } from './_helpers.js';

test('no name, nothing running: NOT_RUNNING says where it looked and what to do', async (t) => {
  const dir = await tmpRunDir(t);
  const err = await t.throwsAsync(request({ dir, op: 'status' }), { instanceOf: NodesupError, code: 'NODESUP_ERR_NOT_RUNNING' });
  t.is(err.message, `no nodesup supervisor is running (looked in ${dir}); start one with "nodesup start app.js"`);
  await t.throwsAsync(request({ dir: path.join(dir, 'missing'), op: 'status' }), { code: 'NODESUP_ERR_NOT_RUNNING' });
});

test('no name, one running: it is used', async (t) => {
  const dir = await tmpRunDir(t);
  await startServer(t, { dir, name: 'worker' });
  t.is((await request({ dir, op: 'ping' })).name, 'worker');
});

test('no name, several running: AMBIGUOUS lists them and shows the command to type', async (t) => {
  const dir = await tmpRunDir(t);
  await startServer(t, { dir, name: 'worker' });
  await startServer(t, { dir, name: 'api' });
  const err = await t.throwsAsync(request({ dir, op: 'status' }), { code: 'NODESUP_ERR_AMBIGUOUS' });
  t.is(err.message, 'several supervisors are running (api, worker); name one: nodesup status api');
  await t.throwsAsync(request({ dir, op: 'recycle', args: { slot: 2 } }), { message: /name one: nodesup recycle 2 api$/ });
});

test('no name: stale sockets of dead supervisors do not count', async (t) => {
  const dir = await tmpRunDir(t);
  await makeStaleSocket(socketPath(dir, 'dead'));
  await t.throwsAsync(request({ dir, op: 'status' }), { code: 'NODESUP_ERR_NOT_RUNNING' });
  await startServer(t, { dir, name: 'api' });
  t.is((await request({ dir, op: 'ping' })).name, 'api');
});

test('a name with no socket, or a stale one: NOT_RUNNING naming it', async (t) => {
  const dir = await tmpRunDir(t);
  await t.throwsAsync(request({ name: 'x', dir, op: 'status' }), {
    code: 'NODESUP_ERR_NOT_RUNNING',
    message: /^no supervisor named "x" is running \(no socket at /,
  });
  await makeStaleSocket(socketPath(dir, 'x'));
  await t.throwsAsync(request({ name: 'x', dir, op: 'status' }), {
    code: 'NODESUP_ERR_NOT_RUNNING',
    message: /^no supervisor named "x" is running \(stale socket /,
  });
});

testAsRoot()('a run dir owned by someone else is refused before connecting', async (t) => {
  const dir = await tmpRunDir(t);
  await fs.chown(dir, 65534, 65534);
  await t.throwsAsync(request({ dir, op: 'status' }), { code: 'NODESUP_ERR_CONTROL', message: /not by us/ });
});

test('an answer that does not come in time is NODESUP_ERR_CONTROL', async (t) => {
  const dir = await tmpRunDir(t);
  await startServer(t, { dir, handlers: fakeHandlers({ reload: () => new Promise(() => {}) }) });
  await t.throwsAsync(request({ name: 'api', dir, op: 'reload', timeoutMs: 100 }), {
    code: 'NODESUP_ERR_CONTROL',
    message: 'supervisor "api" did not answer "reload" within 100 ms; it may be overloaded, check its logs',
  });
});

test('an unknown error code from the server becomes NODESUP_ERR_CONTROL', async (t) => {
  const dir = await tmpRunDir(t);
  const weird = Object.assign(new Error('weird'), { code: 'NODESUP_ERR_FROM_THE_FUTURE' });
  await startServer(t, { dir, handlers: fakeHandlers({ reload: () => Promise.reject(weird) }) });
  await t.throwsAsync(request({ name: 'api', dir, op: 'reload' }), { code: 'NODESUP_ERR_CONTROL', message: 'weird' });
});

test('connect() reuses one socket for many requests', async (t) => {
  const dir = await tmpRunDir(t);
  const server = await startServer(t, { dir });
  const conn = connect({ dir });
  t.teardown(() => conn.close());
  for (let i = 0; i < 10; i++) t.is((await conn.request('status')).name, 'api');
  t.is(server.connections, 1);
  const all = await Promise.all([conn.request('ping'), conn.request('recycle', { slot: 1 }), conn.request('status')]);
  t.is(all[1].slot, 1);
  await t.throwsAsync(conn.request('recycle', { slot: -1 }), { code: 'NODESUP_ERR_USAGE' });
  t.is((await conn.request('ping')).pong, true, 'an error reply does not break the connection');
  t.is(server.connections, 1);
});

test('connect() survives a supervisor restart', async (t) => {
  const dir = await tmpRunDir(t);
  const first = await startControlServer({ name: 'api', dir, handlers: fakeHandlers() });
  const conn = connect({ name: 'api', dir });
  t.teardown(() => conn.close());
  t.true((await conn.request('ping')).pong);
  await first.close();
  await t.throwsAsync(conn.request('ping'), { code: 'NODESUP_ERR_NOT_RUNNING' });
  await startServer(t, { dir });
  t.true((await conn.request('ping')).pong);
});

test('connect() after close() refuses', async (t) => {
  const dir = await tmpRunDir(t);
  await startServer(t, { dir });
  const conn = connect({ dir });
  await conn.request('ping');
  conn.close();
  await t.throwsAsync(conn.request('ping'), { code: 'NODESUP_ERR_CONTROL', message: /already closed/ });
});

test('a socket that is not a nodesup supervisor is reported, not trusted', async (t) => {
  const dir = await tmpRunDir(t);
  const impostor = net.createServer((sock) => sock.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  await new Promise((resolve) => impostor.listen(socketPath(dir, 'web'), resolve));
  t.teardown(() => impostor.close());
  await t.throwsAsync(request({ name: 'web', dir, op: 'status' }), { code: 'NODESUP_ERR_CONTROL', message: /not JSON; is .*web\.sock a nodesup socket\?/ });
});

test('discovery skips socket files whose names no supervisor could have', async (t) => {
  const dir = await tmpRunDir(t);
  const odd = net.createServer();
  await new Promise((resolve) => odd.listen(path.join(dir, '-odd.sock'), resolve));
  t.teardown(() => odd.close());
  await startServer(t, { dir, name: 'api' });
  t.is((await request({ dir, op: 'ping' })).name, 'api');
});
