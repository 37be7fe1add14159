// The detection bench's keep-alive load: its own stop must not fail the requests it has in flight,
// or the end of every run shows ECONNRESETs ("socket hang up") no supervisor caused.
import http from 'node:http';
import { once } from 'node:events';
import test from 'ava';
import { startLoad } from '../../bench/lib/keepalive-load.js';

test('stop() lets a request in flight finish: answered and counted ok, not failed', async (t) => {
  const arrived = [];
  const s = http.createServer((req, res) => { arrived.push(res); setTimeout(() => res.end('ok'), 300); });
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  t.teardown(() => { s.closeAllConnections(); s.close(); });
  s.on('request', () => s.emit('arrived'));

  const load = startLoad(s.address().port, 10);
  await once(s, 'arrived'); // a request is in flight: the server answers it 300 ms from now
  await load.stop();
  t.is(load.counts.failed, 0, JSON.stringify(load.counts.failures));
  t.is(load.counts.ok, arrived.length, 'every request the server saw was answered and counted');
});

test('a server that never answers: stop() gives up after its wait and counts the request failed', async (t) => {
  const s = http.createServer(() => {});
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  t.teardown(() => { s.closeAllConnections(); s.close(); });
  const load = startLoad(s.address().port, 10);
  await once(s, 'request');
  const started = Date.now();
  await load.stop();
  t.true(Date.now() - started < 10_000);
  t.true(load.counts.failed >= 1);
  t.is(load.counts.ok, 0);
});
