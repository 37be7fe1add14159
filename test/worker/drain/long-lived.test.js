// What a drain knows of the requests in flight, on a real HTTP server in this process: the open
// ones with their paths and ages (what HELD reports), none once they end, and a keep-alive socket
// that carries many requests costs one close listener, not one per request: the agent's whole
// per-request cost on a keep-alive connection was that listener.
import test from 'ava';
import http from 'node:http';
import dc from 'node:diagnostics_channel';
import { once } from 'node:events';
import { workerDrain } from '../../../src/worker/drain/drain.js';

async function world(t) {
  const drain = workerDrain({});
  const seen = { on: true };
  const onRequest = ({ request, response, server }) => { if (seen.on) drain.request(request, response, server); };
  dc.subscribe('http.server.request.start', onRequest);
  const held = [];
  const sockets = [];
  const resCloseListeners = [];
  const server = http.createServer((req, res) => {
    resCloseListeners.push(res.listenerCount('close'));
    if (req.url.startsWith('/hold')) held.push(res);
    else res.end('ok');
  });
  server.on('connection', (s) => sockets.push(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => {
    dc.unsubscribe('http.server.request.start', onRequest);
    agent.destroy();
    server.closeAllConnections();
    server.close();
  });
  const get = (path) => new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: server.address().port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res));
    }).on('error', reject);
  });
  return { drain, held, sockets, resCloseListeners, seen, get };
}

test('held: a request in flight is listed with its path and age until it ends', async (t) => {
  const { drain, held, get } = await world(t);
  await get('/a');
  t.deepEqual(drain.held.snapshot(), { requests: [], openRequests: 0, upgraded: 0 }, 'an ended request on an idle socket holds nothing');
  const pending = get('/hold?token=secret');
  while (held.length === 0) await new Promise((resolve) => setImmediate(resolve));
  const snap = drain.held.snapshot();
  t.is(snap.openRequests, 1);
  t.like(snap.requests[0], { method: 'GET', path: '/hold' });
  t.true(snap.requests[0].ageMs >= 0);
  held[0].end('done');
  await pending;
  t.is(drain.held.snapshot().openRequests, 0);
});

test('a keep-alive socket carrying many requests gets one close listener, and its responses none', async (t) => {
  const { sockets, resCloseListeners, seen, get } = await world(t);
  seen.on = false;
  await get('/unseen');
  seen.on = true;
  await get('/1');
  t.is(sockets.length, 1);
  const after1 = sockets[0].listenerCount('close');
  for (let i = 0; i < 20; i++) await get(`/${i}`);
  t.is(sockets.length, 1, 'the same socket carried them all');
  t.is(sockets[0].listenerCount('close'), after1);
  t.true(resCloseListeners.every((n) => n === resCloseListeners[0]), `close listeners on the responses: ${resCloseListeners}`);
});
