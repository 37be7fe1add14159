// An external (Buffer) leak confirmed on points after full GCs, with the Buffer sampler's sites; and
// the suspicion raised by polled external memory, which saws on Node 24+ and is never judged itself.
import test from 'ava';
import { confirmedExternalLeak } from '../../../src/core/leak/external-leak.js';
import { confirmStep, newConfirmState } from '../../../src/core/leak/heap-confirm.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';

const MiB = 1024 * 1024;
const MIN_GROWTH = MiB / 60;
const site = (fn, bytes, samples) => ({ fn, file: 'bench/corpus/buffer-churn-leak.js', line: fn === 'holdUpload' ? 13 : 17, bytes, samples });
// Recorded: bench/corpus/buffer-churn-leak.js at LEAK_MB_PER_MIN=1 with 4× as many Buffer bytes
// churned by parseChunk, under the CLI at the defaults (Node 20): the points the agent returned.
const LEAK = [
  { at: 1795611757340, heapAfter: 4331744, externalAfter: 2325049, buffers: { total: 0, sites: [] } },
  { at: 1795611777410, heapAfter: 4428784, externalAfter: 2718264, buffers: { total: 166559, sites: [site('holdUpload', 166559, 2)] } },
  { at: 1795611798239, heapAfter: 4626136, externalAfter: 3130034, buffers: { total: 582958, sites: [site('holdUpload', 582958, 7)] } },
  { at: 1795611818547, heapAfter: 4640776, externalAfter: 3457714, buffers: { total: 916076, sites: [site('holdUpload', 916076, 11)] } },
].map((p) => ({ forced: true, pauseMs: 15, sites: null, ...p }));
// Recorded: the churn alone (bench/corpus/buffer-churn.js): polled external rose, the points did not.
const CHURN = [
  { at: 1795611757856, heapAfter: 4493936, externalAfter: 2030137, buffers: { total: 0, sites: [] } },
  { at: 1795611778565, heapAfter: 4442008, externalAfter: 2030136, buffers: { total: 0, sites: [] } },
].map((p) => ({ forced: true, pauseMs: 15, sites: null, ...p }));
const ep = (points) => ({ since: points[0].at, heldUntil: 0, confirmedAt: null, external: true });

test('recorded Buffer leak among 4× churn: named from four points, its site holdUpload, the churn not', (t) => {
  const found = confirmedExternalLeak(LEAK, ep(LEAK), { minGrowth: MIN_GROWTH });
  t.like(found, { kind: 'external', field: 'externalAfterGc', confirm: { points: 4, forcedGcs: 4 } });
  t.true(found.growthBytesPerSec > 0.9 * MIN_GROWTH && found.growthBytesPerSec < 1.5 * MIN_GROWTH, String(found.growthBytesPerSec));
  t.like(found.sites, [{ fn: 'holdUpload', line: 13, share: 1 }]);
  t.is(found.sites.length, 1);
});

test('three of the points are not enough; the episode must suspect external memory', (t) => {
  t.is(confirmedExternalLeak(LEAK.slice(0, 3), ep(LEAK), { minGrowth: MIN_GROWTH }), null);
  t.is(confirmedExternalLeak(LEAK, { ...ep(LEAK), external: false }, { minGrowth: MIN_GROWTH }), null);
});

const T0 = 1_000_000;
const pts = (f) => Array.from({ length: 5 }, (_, i) => ({ at: T0 + i * 20_000, heapAfter: 5 * MiB, externalAfter: Math.round(2 * MiB + f(i * 20)), forced: true, pauseMs: 5, sites: null, buffers: null }));
const SHAPES = [
  ['a 2 MiB/min rise', pts((s) => (s / 30) * MiB), true],
  ['flat after GC (churn that saws between GCs)', pts(() => 0), false],
  ['one step of 8 MiB (a pool allocated once)', pts((s) => (s >= 40 ? 8 * MiB : 0)), false],
  ['a pool filling to its cap', pts((s) => Math.min(6, s / 8) * MiB), false],
];
for (const [title, p, leak] of SHAPES) {
  test(`confirmedExternalLeak: ${title} → ${leak ? 'a leak' : 'no leak'}`, (t) => {
    t.is(confirmedExternalLeak(p, ep(p), { minGrowth: MIN_GROWTH }) !== null, leak);
  });
}

test('the projected time to the rss limit comes from the tree and the rate', (t) => {
  const p = pts((s) => s * MiB); // 1 MiB/s
  const found = confirmedExternalLeak(p, ep(p), { minGrowth: MIN_GROWTH, rssLimit: 200 * MiB, treeRss: 100 * MiB });
  t.is(Math.round(found.projectedLimitInSec), 100);
});

// Polled external rising (a sawtooth on Node 24+, or a leak) raises a suspicion that runs the
// Buffer sampler; two points after a GC that do not rise end it.
function windowOf(f, n = 31) {
  const w = new SampleWindow({ maxAgeMs: 120_000 });
  for (let i = 0; i < n; i++) w.push({ t: T0 + i * 1000, heapUsed: 5 * MiB, heapFloor: 5 * MiB, external: Math.round(2 * MiB + f(i)) });
  return w;
}
test('confirmStep: external rising while the heap is flat suspects external only (the Buffer sampler, not the heap profiler)', (t) => {
  const w = { window: windowOf((s) => (s / 30) * MiB), readyAt: T0, startedAt: T0, points: [] };
  const { state, action } = confirmStep(w, newConfirmState(), T0 + 30_000, { minGrowth: MIN_GROWTH, pollInterval: 1000 });
  t.is(action, 'probe');
  t.like(state, { external: true, heap: false });
});
test('confirmStep: two flat points after GC end an external suspicion and hold it off', (t) => {
  const st = { since: T0, heldUntil: 0, confirmedAt: null, external: true, heap: false };
  const flat = [0, 1].map((i) => ({ at: T0 + i * 20_000, heapAfter: 5 * MiB, externalAfter: 2 * MiB, forced: true, pauseMs: 5 }));
  const w = { window: windowOf((s) => (s / 30) * MiB, 60), readyAt: T0, startedAt: T0, points: flat };
  const { state, action } = confirmStep(w, st, T0 + 40_000, { minGrowth: MIN_GROWTH, pollInterval: 1000 });
  t.is(action, 'stop');
  t.like(state, { since: null, external: false });
  t.true(state.heldUntil > T0 + 40_000);
});
test('confirmStep: in a heap-only episode external readings do not keep it alive', (t) => {
  const st = { since: T0, heldUntil: 0, confirmedAt: null, external: false, heap: true };
  const p = [0, 1].map((i) => ({ at: T0 + i * 20_000, heapAfter: 5 * MiB, externalAfter: 2 * MiB + i * 4 * MiB, forced: true, pauseMs: 5 }));
  const w = { window: windowOf(() => 0, 60), readyAt: T0, startedAt: T0, points: p };
  t.is(confirmStep(w, st, T0 + 40_000, { minGrowth: MIN_GROWTH, pollInterval: 1000 }).action, 'stop');
});

// A running external suspicion takes points after forced full GCs; each leaves the lowest heap floor
// the worker polls, so the floors after its own GCs stand above it and read as a rise.
test('confirmStep: the heap joins an external suspicion on its points, not on the polled floor', (t) => {
  const st = { since: T0, heldUntil: 0, confirmedAt: null, external: true, heap: false };
  const at = (i, heapAfter) => ({ at: T0 + i * 20_000, heapAfter, externalAfter: 2 * MiB + i * MiB, forced: true, pauseMs: 5 });
  const w = new SampleWindow({ maxAgeMs: 120_000 });
  // The polled floor climbs 2 MiB/min: the rise a suspicion starts on.
  for (let i = 0; i <= 45; i++) w.push({ t: T0 + i * 1000, heapUsed: 6 * MiB, heapFloor: 5 * MiB + Math.round((i / 30) * MiB), external: 2 * MiB + Math.round((i / 20) * MiB) });
  const step = (points) => confirmStep({ window: w, readyAt: T0 - 60_000, startedAt: T0 - 60_000, points }, st, T0 + 45_000, { minGrowth: MIN_GROWTH, pollInterval: 1000 });
  const flat = step([at(0, 5 * MiB), at(1, 5 * MiB + 10_000)]);
  t.is(flat.action, 'probe', 'external memory rises: the suspicion goes on');
  t.false(flat.state.heap, 'the heap after the forced GCs is flat: no profiler');
  // 0.6 MiB in 20 s: 1.8 MiB/min, over the suspicion rate (0.5 MiB/min at this minGrowth).
  t.true(step([at(0, 5 * MiB), at(1, 5.6 * MiB)]).state.heap);
  t.false(step([at(0, 5 * MiB)]).state.heap, 'one point is no rise');
});
