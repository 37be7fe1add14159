import test from 'ava';
import { restartDelay, crashesInWindow, shouldGiveUp } from '../../src/core/backoff.js';
import { planRecycles } from '../../src/core/policy/recycle-plan.js';
import { canTransition, transition } from '../../src/core/worker-state.js';
import { SampleWindow } from '../../src/core/forecast/sample-window.js';

const restart = { initialDelay: 100, maxDelay: 30_000, maxCrashes: 3, crashWindow: 60_000 };

test('restartDelay grows exponentially and is capped', (t) => {
  t.deepEqual([1, 2, 3, 4, 10, 100].map((n) => restartDelay(n, restart)), [100, 200, 400, 800, 30_000, 30_000]);
});

test('crashesInWindow keeps only recent crashes; shouldGiveUp at maxCrashes', (t) => {
  t.deepEqual(crashesInWindow([1000, 50_000, 70_000], 100_000, 60_000), [50_000, 70_000]);
  t.false(shouldGiveUp(2, restart));
  t.true(shouldGiveUp(3, restart));
});

test('planRecycles: maxConcurrent, busy slots skipped, duplicates dropped', (t) => {
  const wanted = [{ slot: 0, reason: 'rss' }, { slot: 1, reason: 'heap' }, { slot: 0, reason: 'max-age' }, { slot: 2, reason: 'leak' }];
  t.deepEqual(planRecycles(wanted, new Set(), 1), [wanted[0]]);
  t.deepEqual(planRecycles(wanted, new Set([0]), 2), [wanted[1]]);
  t.deepEqual(planRecycles(wanted, new Set([5, 6]), 2), []);
  t.deepEqual(planRecycles(wanted, new Set(), 3), [wanted[0], wanted[1], wanted[3]]);
  // Slot 0's early replacement is ready and waits for its crossing: the one slot of room is free.
  t.deepEqual(planRecycles(wanted, new Set([0]), 1, new Set([0])), [wanted[1]], 'a waiting slot leaves the room to another');
  t.deepEqual(planRecycles(wanted, new Set([0]), 1), [], 'a slot still starting its replacement holds it');
});

test('planRecycles: a memory verdict is not held behind the room while the headroom has room; the rest are', (t) => {
  const wanted = [{ slot: 0, reason: 'max-age' }, { slot: 1, reason: 'rss', predictive: true }, { slot: 2, reason: 'rss' }, { slot: 3, reason: 'manual' }];
  t.deepEqual(planRecycles(wanted, new Set(), 1).map((v) => v.slot), [2], 'over the limit first, then about to cross, then the rest');
  t.deepEqual(planRecycles(wanted, new Set([5]), 1, new Set(), 2).map((v) => v.slot), [2, 1], 'slot 5 holds the room; two memory verdicts start beside it');
  t.deepEqual(planRecycles(wanted, new Set([5]), 1, new Set(), 1).map((v) => v.slot), [2], 'the headroom bounds them');
  t.deepEqual(planRecycles(wanted, new Set([5]), 1, new Set(), 0), [], 'no headroom known: the room of maxConcurrent holds');
});

test('memoryRoom: half the headroom in fresh workers (the smallest a serving worker has been), none when unknown', async (t) => {
  const { memoryRoom } = await import('../../src/core/policy/recycle-plan.js');
  const MiB = 1024 * 1024;
  const w = (...rss) => ({ window: { samples: rss.map((r, i) => ({ t: i, rss: r * MiB, treeRss: r * MiB })) } });
  const fleet = [w(50, 120, 150), w(60, 140), w(55)];
  t.is(memoryRoom(200 * MiB, fleet), 2, '100 MiB of the 200 free, in 50 MiB workers');
  t.is(memoryRoom(1000 * MiB, fleet), 3, 'never more than the workers there are');
  t.is(memoryRoom(60 * MiB, fleet), 0);
  t.is(memoryRoom(null, fleet), 0);
  t.is(memoryRoom(200 * MiB, [{ window: { samples: [] } }]), 0);
});

test('worker states: legal and illegal transitions', (t) => {
  t.true(canTransition('spawning', 'ready'));
  t.true(canTransition('spawning', 'draining'), 'a stop during startup drains it');
  t.true(canTransition('ready', 'draining'));
  t.true(canTransition('draining', 'killing'));
  t.false(canTransition('draining', 'ready'));
  t.false(canTransition('exited', 'ready'));
  t.throws(() => transition('killing', 'ready'), { message: 'impossible worker transition killing -> ready' });
});

test('SampleWindow: bounded by age and count, series skips nulls', (t) => {
  const w = new SampleWindow({ maxAgeMs: 5000, maxSamples: 4 });
  for (let i = 0; i <= 10; i++) w.push({ t: i * 1000, heapUsed: i % 3 === 0 ? null : i });
  t.is(w.size, 4);
  t.is(w.last().t, 10_000);
  t.deepEqual(w.series('heapUsed'), [[7000, 7], [8000, 8], [10_000, 10]]);
  t.deepEqual(w.since(9000).map((s) => s.t), [9000, 10_000]);
  t.is(w.span(), 3000);
  const byAge = new SampleWindow({ maxAgeMs: 2500 });
  for (let i = 0; i <= 10; i++) byAge.push({ t: i * 1000 });
  t.deepEqual(byAge.samples.map((s) => s.t), [8000, 9000, 10_000]);
});

test('SampleWindow: since and rateOf find the window\'s start by bisection, as a scan would (uneven gaps, duplicates, nulls)', (t) => {
  const w = new SampleWindow({ maxAgeMs: 1e9 });
  let at = 1000;
  for (let i = 0; i < 300; i++) {
    at += [0, 1, 7, 250, 1000][(i * 7) % 5]; // repeated timestamps too
    w.push({ t: at, gcMs: i % 11 === 0 ? null : i * 2 });
  }
  const scanIndex = (since) => { const i = w.samples.findIndex((x) => x.t >= since); return i < 0 ? w.samples.length : i; };
  for (const since of [-Infinity, 0, 1000, 1001, w.samples[37].t, w.samples[37].t + 1, w.samples[150].t, at, at + 1]) {
    t.is(w.indexSince(since), scanIndex(since), `since ${since}`);
    t.deepEqual(w.since(since), w.samples.filter((x) => x.t >= since));
    const first = w.samples.find((x) => x.t >= since && x.gcMs != null);
    const last = w.last();
    const want = !first || last.t <= first.t ? null : (last.gcMs - first.gcMs) / (last.t - first.t);
    t.is(w.rateOf('gcMs', since), want, `rateOf since ${since}`);
  }
});

test('DurationRing: percentiles over the last N, nulls when empty', async (t) => {
  const { DurationRing } = await import('../../src/core/duration-ring.js');
  const r = new DurationRing(100);
  t.deepEqual(r.summary(), { count: 0, lastMs: null, p50Ms: null, p99Ms: null, maxMs: null });
  for (let i = 1; i <= 150; i++) r.record(i);
  t.deepEqual(r.summary(), { count: 150, lastMs: 150, p50Ms: 101, p99Ms: 150, maxMs: 150 });
});
