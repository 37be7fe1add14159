import test from 'ava';
import { DurationRing } from '../../src/report/duration-ring.js';

test('DurationRing: percentiles over the last N, nulls when empty', (t) => {
  const r = new DurationRing(100);
  t.deepEqual(r.summary(), { count: 0, lastMs: null, p50Ms: null, p99Ms: null, maxMs: null });
  for (let i = 1; i <= 150; i++) r.record(i);
  t.deepEqual(r.summary(), { count: 150, lastMs: 150, p50Ms: 101, p99Ms: 150, maxMs: 150 });
});
