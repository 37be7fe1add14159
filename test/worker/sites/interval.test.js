// The sampling interval follows the allocation rate: a worker allocating little keeps V8's fine
// default; one allocating fast is sampled coarser (its cost bounded) and still names what it retains.
import test from 'ava';
import v8 from 'node:v8';
import vm from 'node:vm';
import { heapProfiler, SAMPLING_INTERVAL } from '../../../src/worker/sites/heap-profiler.js';
import { intervalFor, MAX_SAMPLES_PER_SEC, MAX_INTERVAL } from '../../../src/worker/sites/inspector-profiler.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

test('intervalFor: the base under the budget, the power of two that brings a faster rate under it, capped', (t) => {
  const base = 32 * 1024;
  t.is(intervalFor(0, base), base);
  t.is(intervalFor(MAX_SAMPLES_PER_SEC, base), base);
  t.is(intervalFor(MAX_SAMPLES_PER_SEC * 3, base), base * 4);
  t.is(intervalFor(MAX_SAMPLES_PER_SEC * 4, base), base * 4);
  t.is(intervalFor(MAX_SAMPLES_PER_SEC * 1e6, base), MAX_INTERVAL);
  for (const rate of [10, 500, 3000, 12_000]) t.true(rate * (base / intervalFor(rate, base)) <= MAX_SAMPLES_PER_SEC || intervalFor(rate, base) === MAX_INTERVAL);
});

const kept = [];
function keepSome(n) {
  for (let i = 0; i < n; i++) kept.push({ i, payload: new Array(120).fill(i + 0.5) });
}

// Garbage as fast as this process gets the CPU, until stopped, in slices that let the profiler's
// own work run; stop() says the rate reached, in bytes a second (an array of 64 doubles: ~530 B).
const ARRAY_BYTES = 16 + 16 + 64 * 8;
function churn() {
  let on = true;
  let made = 0;
  const t0 = performance.now();
  const tick = () => {
    if (!on) return;
    for (let i = 0; i < 5000; i++) made += new Array(64).fill(i).length > 0 ? 1 : 0;
    setImmediate(tick);
  };
  tick();
  return () => { on = false; return (made * ARRAY_BYTES) / ((performance.now() - t0) / 1000); };
}

test.serial('a fast-allocating worker is sampled coarser, as its rate says, and the function that retains is still named', async (t) => {
  const p = heapProfiler({ adapt: true });
  t.teardown(() => p.stop());
  const stopChurn = churn();
  const before = await p.sample();
  const bytesPerSec = stopChurn();
  t.truthy(before, String(p.reason));
  // What the rate reached implies, within one doubling either side (the samples are a Poisson
  // count, and a loaded host slows the churn): a host that starves it keeps the fine interval.
  const expected = intervalFor(bytesPerSec / SAMPLING_INTERVAL, SAMPLING_INTERVAL);
  t.log(`churn at ${Math.round(bytesPerSec / 2 ** 20)} MiB/s: interval ${p.interval}, expected about ${expected}`);
  t.true(p.interval >= expected / 2 && p.interval <= expected * 2, `interval ${p.interval}, expected about ${expected}`);
  if (expected >= 4 * SAMPLING_INTERVAL) t.true(p.interval > SAMPLING_INTERVAL);
  keepSome(40_000); // ~40 MiB retained: tens of samples even at the coarsest interval
  gc();
  const after = await p.sample();
  const mine = after.sites.find((s) => s.fn === 'keepSome');
  t.truthy(mine, JSON.stringify(after.sites.slice(0, 3)));
  t.true(mine.bytes > 10 * 1024 * 1024, `${mine.bytes} bytes sampled at ${p.interval}`);
  kept.length = 0;
});

test.serial('a quiet worker keeps the fine interval; without adapt, the fine interval whatever the rate', async (t) => {
  const quiet = heapProfiler({ adapt: true });
  t.teardown(() => quiet.stop());
  t.truthy(await quiet.sample(), String(quiet.reason));
  t.is(quiet.interval, SAMPLING_INTERVAL);
  quiet.stop();
  t.is(quiet.interval, null, 'stopped: no interval');

  const fixed = heapProfiler({ adapt: false });
  t.teardown(() => fixed.stop());
  const stopChurn = churn();
  t.truthy(await fixed.sample(), String(fixed.reason));
  stopChurn();
  t.is(fixed.interval, SAMPLING_INTERVAL);
});

test.serial('stopped while it calibrates: nothing runs, no reason is made up, and a later sample starts afresh', async (t) => {
  const p = heapProfiler({ adapt: true });
  t.teardown(() => p.stop());
  const pending = p.sample();
  await new Promise((resolve) => setTimeout(resolve, 100));
  p.stop();
  t.is(await pending, null);
  t.is(p.reason, null);
  t.is(p.via, null);
  t.truthy(await p.sample(), 'a new start');
  t.is(p.via, 'inspector');
});
