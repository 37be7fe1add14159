// The worker's side of a drain, on a real HTTP server in this process: from DRAIN on, responses
// tell their clients to close; the app's onDrain hooks run once; the server's close leaves idle
// keep-alive sockets to Node's idle timeout rather than closing them under a client.
import test from 'ava';
import http from 'node:http';
import dc from 'node:diagnostics_channel';
import { once } from 'node:events';
import { workerDrain } from '../../../src/worker/drain/drain.js';
import { hooks } from '../../../src/worker/hooks.js';

async function world(t) {
  let stopped = 0;
  const drain = workerDrain({ onStart: () => { stopped++; } });
  const onRequest = ({ request, response, server }) => drain.request(request, response, server);
  dc.subscribe('http.server.request.start', onRequest);
  const sockets = [];
  const server = http.createServer((req, res) => res.end('ok'));
  server.on('connection', (s) => sockets.push(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const agent = new http.Agent({ keepAlive: true });
  t.teardown(() => {
    dc.unsubscribe('http.server.request.start', onRequest);
    agent.destroy();
    server.closeAllConnections();
    server.close();
  });
  const get = () => new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: server.address().port, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res));
    }).on('error', reject);
  });
  return { drain, server, sockets, get, stopped: () => stopped };
}

test('from DRAIN on, a response says Connection: close; the onDrain hooks and onStart run once', async (t) => {
  const { drain, get, stopped } = await world(t);
  let hookRuns = 0;
  const hook = () => { hookRuns++; };
  hooks().onDrain.push(hook);
  t.teardown(() => { hooks().onDrain.splice(hooks().onDrain.indexOf(hook), 1); });

  t.is((await get()).headers.connection, 'keep-alive', 'before the drain');
  t.false(drain.draining);
  drain.start({ closeWithinMs: 0 });
  drain.start({ closeWithinMs: 0 }); // a second DRAIN (a stop during a recycle) changes nothing
  t.true(drain.draining);
  t.is(hookRuns, 1);
  t.is(stopped(), 1);
  t.is((await get()).headers.connection, 'close', 'during the drain');
});

test('draining, the server\'s close leaves an idle keep-alive socket open for its idle timeout', async (t) => {
  const { drain, server, sockets, get } = await world(t);
  await get();
  t.is(sockets.length, 1);
  drain.start({ closeWithinMs: 0 });
  server.close(); // what cluster's disconnect does: it closes idle connections at once
  t.false(sockets[0].destroyed, 'the idle socket is not closed under its client');
});
