// Native memory told apart by its trend: a steady rise is native allocations that grow (zlib
// streams never closed, an addon); flat is freed memory the allocator keeps (incident 2, docs/incidents.md); too short
// or too noisy a record says neither.
import test from 'ava';
import { nativeRising } from '../../../src/core/forecast/worker-trend.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';

const MiB = 1024 * 1024;
const windowOf = (f, n = 90, stepMs = 1000) => {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  for (let i = 0; i < n; i++) w.push({ t: i * stepMs, native: f(i) });
  return w;
};

test('nativeRising: rising, flat, noisy and too short', (t) => {
  t.true(nativeRising(windowOf((i) => 200 * MiB + i * 0.1 * MiB), 89_000), '6 MiB/min, steady');
  t.false(nativeRising(windowOf(() => 400 * MiB), 89_000), 'flat at 400 MiB');
  t.false(nativeRising(windowOf((i) => 400 * MiB + (i % 2) * 0.2 * MiB), 89_000), 'flat, with allocator noise');
  t.is(nativeRising(windowOf((i) => 200 * MiB + i * 0.1 * MiB + ((i * 7919) % 13) * 3 * MiB), 89_000), null, 'rising through noise: not clean enough to say');
  t.is(nativeRising(windowOf((i) => 200 * MiB + i * MiB, 30), 29_000), null, 'half a minute says nothing yet');
});
