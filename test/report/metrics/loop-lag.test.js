import test from 'ava';
import prom, { loopLag, LOOP_LAG_RESOLUTION_MS } from '../../../src/report/metrics/prom.js';

const MS = 1e6; // ns

// A recorded histogram (what monitorEventLoopDelay holds after a window): timer intervals in ns.
function recorded({ count = 10, min = 100.2 * MS, max = 180 * MS, mean = 104 * MS, stddev = 2 * MS, p = { 50: 101 * MS, 90: 110 * MS, 99: 150 * MS } } = {}) {
  const h = { count, min, max, mean, stddev, enabled: false, resets: 0, asked: null };
  h.percentile = (q) => p[q];
  h.enable = () => { h.enabled = true; };
  h.reset = () => { h.resets++; h.count = 0; };
  return h;
}

function collector(h) {
  const registry = new prom.Registry();
  loopLag(registry, 'x_', (o) => { h.asked = o; return h; });
  const read = async () => Object.fromEntries((await registry.getMetricsAsJSON()).map((m) => [m.name, m.values[0]?.value]));
  return { read };
}

test('the loop is sampled every 100 ms, not prom-client\'s 10', (t) => {
  const h = recorded();
  collector(h);
  t.deepEqual(h.asked, { resolution: 100 });
  t.is(LOOP_LAG_RESOLUTION_MS, 100);
  t.true(h.enabled);
});

test('prom-client\'s series, each the delay past the timer\'s interval', async (t) => {
  const h = recorded();
  const got = await collector(h).read();
  const near = (name, want) => t.true(Math.abs(got[name] - want) < 1e-9, `${name}: ${got[name]} against ${want}`);
  near('x_nodejs_eventloop_lag_min_seconds', 0.0002);
  near('x_nodejs_eventloop_lag_max_seconds', 0.08);
  near('x_nodejs_eventloop_lag_mean_seconds', 0.004);
  near('x_nodejs_eventloop_lag_stddev_seconds', 0.002);
  near('x_nodejs_eventloop_lag_p50_seconds', 0.001);
  near('x_nodejs_eventloop_lag_p90_seconds', 0.01);
  near('x_nodejs_eventloop_lag_p99_seconds', 0.05);
  t.true('x_nodejs_eventloop_lag_seconds' in got, 'the lag at scrape time, as prom-client has it');
  t.is(h.resets, 1, 'each scrape reads its own window');
});

test('a scrape with no sample since the last one leaves the last figures', async (t) => {
  const h = recorded();
  const c = collector(h);
  await c.read();
  h.max = 900 * MS; // count is 0 after the reset: nothing new was recorded
  const got = await c.read();
  t.true(Math.abs(got.x_nodejs_eventloop_lag_max_seconds - 0.08) < 1e-9);
  t.is(h.resets, 1);
});

test('a timer early by rounding reads 0, not a negative delay', async (t) => {
  const got = await collector(recorded({ min: 99.9 * MS })).read();
  t.is(got.x_nodejs_eventloop_lag_min_seconds, 0);
});
