// The request accounting the zero-dropped-requests tests and benches rely on must see the loss
// autocannon alone does not: a request outstanding on a connection the server closes quietly.
import http from 'node:http';
import { once } from 'node:events';
import test from 'ava';
import { accountedLoad } from '../../bench/lib/accounted-load.js';

async function server(t, handler) {
  const s = http.createServer(handler);
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  t.teardown(() => { s.closeAllConnections(); s.close(); });
  return `http://127.0.0.1:${s.address().port}/`;
}

test('a request whose connection the server closes without answering is lost silently, and failed', async (t) => {
  let n = 0;
  const url = await server(t, (req, res) => {
    if (++n % 50 === 0) req.socket.end(); // FIN, no response, no reset: what a bad drain does
    else res.end('ok');
  });
  const r = await accountedLoad({ url, connections: 2, duration: 2 }).result;
  t.true(r.lostSilently > 0, JSON.stringify(r));
  t.is(r.failed, r.errors + r.non2xx + r.lostSilently);
  t.true(r.failed > 0);
  t.is(r.unaccounted, 0);
});

test('a server that answers every request: nothing failed, every request accounted for', async (t) => {
  const url = await server(t, (req, res) => res.end('ok'));
  const r = await accountedLoad({ url, connections: 2, duration: 1 }).result;
  // How many fit in the second is the machine's business (a loaded CI host answered fewer than 100).
  t.true(r.ok > 0 && r.ok === r.responses, JSON.stringify(r));
  t.is(r.failed, 0);
  t.is(r.lostSilently, 0);
  t.is(r.unaccounted, 0);
});

test('requests written after a `Connection: close` answer are counted apart, not as failures', async (t) => {
  let n = 0;
  const url = await server(t, (req, res) => {
    if (++n % 50 === 0) res.setHeader('connection', 'close');
    res.end('ok');
  });
  const r = await accountedLoad({ url, connections: 2, duration: 2 }).result;
  t.is(r.failed, 0, JSON.stringify(r));
  t.is(r.unaccounted, 0);
});
