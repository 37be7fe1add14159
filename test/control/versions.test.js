// During a deploy the CLI and the primary may be of different versions, either way round. A new
// CLI against an old primary gets one reply, as before; an old CLI against a new primary never sees
// a progress line it would take for its reply; a new pair streams a reload's progress.
import { once } from 'node:events';
import net from 'node:net';
import test from 'ava';
import { call, request } from '../../src/control/client.js';
import { socketPath } from '../../src/control/run-dir.js';
import { fakeHandlers, rawClient, startServer, tmpRunDir } from './_helpers.js';

/**
 * A supervisor of protocol version 1, as nodesup before progress was: requests of another version
 * are refused (in its words, before anything runs), every request gets one reply, and `stop`
 * answers before it stops. It records every request line it was sent.
 */
async function oldServer(t, dir, name = 'old') {
  const seen = [];
  const ran = [];
  const answers = {
    ping: () => ({ pong: true, pid: process.pid, name }),
    reload: () => ({ reloaded: 1, results: [{ slot: 0, reason: 'reload', result: 'recycled' }, { slot: 1, reason: 'reload', result: 'failed' }] }),
    recycle: (args) => ({ slot: args.slot, reason: 'manual', result: 'recycled' }),
    stop: () => ({ stopping: true }),
  };
  const server = net.createServer((sock) => {
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('data', (text) => {
      buf += text;
      for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
        const req = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        seen.push(req);
        const reply = req.v !== 1
          ? { v: 1, id: req.id, ok: false, error: { code: 'NODESUP_ERR_CONTROL', message: `bad request: protocol version ${JSON.stringify(req.v)}, expected 1; use the nodesup CLI of the same version as the supervisor` } }
          : { v: 1, id: req.id, ok: true, result: (ran.push(req.op), answers[req.op](req.args ?? {})) };
        sock.write(`${JSON.stringify(reply)}\n`);
      }
    });
    sock.on('error', () => {});
  });
  server.listen(socketPath(dir, name));
  await once(server, 'listening');
  t.teardown(() => server.close());
  return { seen, ran };
}

test('a new CLI and an old supervisor: refused once in version 1, asked again in version 1, one reply, run once', async (t) => {
  const dir = await tmpRunDir(t);
  const old = await oldServer(t, dir);
  const steps = [];
  const r = await call({ name: 'old', dir, op: 'reload', onProgress: (p) => steps.push(p) });
  t.is(r.version, 1, 'the answer says which version the supervisor speaks');
  t.deepEqual(r.result.results.map((x) => x.result), ['recycled', 'failed']);
  t.deepEqual(steps, [], 'an old supervisor sends no progress');
  t.deepEqual(old.seen.map((x) => [x.v, x.op, x.accept ?? null]), [[2, 'reload', ['progress']], [1, 'reload', null]]);
  t.deepEqual(old.ran, ['reload'], 'the reload ran once: the refusal ran nothing');
  t.deepEqual(await request({ name: 'old', dir, op: 'stop' }), { stopping: true });
});

test('a new CLI and a new supervisor: a reload streams a step per slot before its reply', async (t) => {
  const dir = await tmpRunDir(t);
  const handlers = fakeHandlers({
    async reload(_args, { progress }) {
      progress?.({ type: 'start', workers: 2, maxConcurrent: 1 });
      for (const slot of [0, 1]) {
        await new Promise((resolve) => setImmediate(resolve));
        progress?.({ type: 'slot', slot, result: 'recycled' });
      }
      return { result: 'ok', reloaded: 2 };
    },
  });
  await startServer(t, { dir, handlers });
  const steps = [];
  const r = await call({ name: 'api', dir, op: 'reload', onProgress: (p) => steps.push(p) });
  t.is(r.version, 2);
  t.deepEqual(r.result, { result: 'ok', reloaded: 2 });
  t.deepEqual(steps.map((p) => [p.type, p.slot ?? null]), [['start', null], ['slot', 0], ['slot', 1]]);
  // Without onProgress the same request is answered once, with no step sent.
  t.deepEqual(await request({ name: 'api', dir, op: 'reload' }), { result: 'ok', reloaded: 2 });
});

test('an old CLI and a new supervisor: one line per request, the reply; a stop answers before it stops', async (t) => {
  const dir = await tmpRunDir(t);
  let progressOffered = null;
  let stopRan;
  const stopped = new Promise((resolve) => { stopRan = resolve; });
  const handlers = fakeHandlers({
    async reload(_args, { progress }) {
      progressOffered = progress;
      return { result: 'failed', reloaded: 0, results: [{ slot: 0, result: 'failed' }] };
    },
    async stop() {
      await stopped;
      return { stopped: true };
    },
  });
  const server = await startServer(t, { dir, handlers });
  const c = await rawClient(t, server.path);
  c.send({ v: 1, id: 1, op: 'reload' });
  t.deepEqual(await c.next(), { v: 1, id: 1, ok: true, result: { result: 'failed', reloaded: 0, results: [{ slot: 0, result: 'failed' }] } });
  t.is(progressOffered, null, 'the handler was given no progress to send to a version 1 client');
  c.send({ v: 1, id: 2, op: 'stop' });
  t.deepEqual(await c.next(), { v: 1, id: 2, ok: true, result: { stopping: true } }, 'answered while the stop still runs');
  stopRan();
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(c.received, [], 'nothing else was sent');
});

test('a version 2 client that does not accept progress gets none', async (t) => {
  const dir = await tmpRunDir(t);
  const handlers = fakeHandlers({ reload: async (_args, { progress }) => ({ offered: progress !== null }) });
  const server = await startServer(t, { dir, handlers });
  const c = await rawClient(t, server.path);
  c.send({ v: 2, id: 1, op: 'reload' });
  t.deepEqual(await c.next(), { v: 2, id: 1, ok: true, result: { offered: false } });
  c.send({ v: 2, id: 2, op: 'reload', accept: ['progress'] });
  t.deepEqual(await c.next(), { v: 2, id: 2, ok: true, result: { offered: true } });
});
