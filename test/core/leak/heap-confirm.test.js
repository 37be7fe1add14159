// Confirming a suspected heap leak with full GCs: the shapes a leak must have and the healthy shapes
// that must not pass (sawtooth, step, warm-up, a cache filling to its cap), and when a point is asked for.
import test from 'ava';
import { confirmedLeak, confirmStep, newConfirmState, pointsRefute, withoutStep, CONFIRM } from '../../../src/core/leak/heap-confirm.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';

const MiB = 1024 * 1024;
const MIN_GROWTH = MiB / 60; // the default: 1 MiB/min
const T0 = 1_000_000;
// Points every 20 s from T0 whose heap follows f(seconds since T0).
const points = (n, f, extra = {}) => Array.from({ length: n }, (_, i) => ({ at: T0 + i * 20_000, heapAfter: Math.round(40 * MiB + f(i * 20)), forced: true, pauseMs: 5, sites: null, ...extra }));
const episode = { since: T0, heldUntil: 0, confirmedAt: null };

const SHAPES = [
  // [title, points, a leak?]
  ['a 1 MiB/min leak, four points', points(4, (s) => (s / 60) * MiB), true],
  ['a 10 MiB/min leak with ±50 KiB of noise', points(5, (s) => (s / 6) * MiB + (s % 40 ? 50 : -50) * 1024), true],
  ['flat (a sawtooth after a full GC)', points(6, () => 0), false],
  ['half the minimum rate', points(6, (s) => (s / 120) * MiB), false],
  ['0.8× the minimum rate', points(6, (s) => ((0.8 * s) / 60) * MiB), false],
  // recorded: heap-leak-late at 1 MiB/min, its first interval short (MiB after each full GC)
  ['a leak at exactly the minimum rate, read low at first', [5.38, 5.53, 5.88, 6.24, 6.61].map((m, i) => ({ at: T0 + i * 20_000, heapAfter: Math.round(m * MiB), forced: true, pauseMs: 5, sites: null })), true],
  ['a step of 20 MiB between the 2nd and 3rd point, flat around it', points(5, (s) => (s >= 40 ? 20 * MiB : 0)), false],
  ['a warm-up: 30 MiB with τ 40 s', points(5, (s) => 30 * MiB * (1 - Math.exp(-(s + 10) / 40))), false],
  ['a cache filling to its 24 MiB cap in 60 s', points(6, (s) => Math.min(24, (24 * s) / 60) * MiB), false],
  ['a cache still filling, ever slower (hits rise)', points(5, (s) => 24 * MiB * (1 - Math.exp(-s / 60))), false],
  ['three points only', points(3, (s) => (s / 6) * MiB), false],
  // memoizee's cache under plain node, after a full GC every 20 s from 80 s (MiB): a hash table's
  // doubling in the older half (+1.60 where the others rise 0.83-0.86)
  ['a leak into a Map that doubled its table early on', [11.31, 12.16, 13.76, 14.59, 15.45].map((m, i) => ({ at: T0 + i * 20_000, heapAfter: Math.round(m * MiB), forced: true, pauseMs: 5, sites: null })), true],
  // Warm-ups whose intervals shrink by a factor r each: 1.5x the next largest from r = 2/3 down
  ...[[0.8, 5], [0.8, 6], [0.667, 5], [0.667, 6], [0.6, 6], [0.5, 7]].map(([r, n]) => [
    `a warm-up whose intervals shrink by ${r}, ${n} points`, points(n, (s) => 30 * MiB * (1 - r ** (s / 20))), false]),
];
for (const [title, pts, leak] of SHAPES) {
  test(`confirmedLeak: ${title} → ${leak ? 'a leak' : 'no leak'}`, (t) => {
    const found = confirmedLeak(pts, episode, MIN_GROWTH);
    t.is(found !== null, leak, JSON.stringify(found));
    if (found) {
      t.is(found.kind, 'heap');
      t.true(found.growthBytesPerSec >= CONFIRM.rate * MIN_GROWTH);
      t.like(found.confirm, { points: pts.length, forcedGcs: pts.length, maxPauseMs: 5 });
    }
  });
}

test('confirmedLeak: sites come from the first and the last profiled point; the profiler\'s reason when none', (t) => {
  const flat = (bytes) => ({ total: bytes, sites: [{ fn: 'cacheUser', file: 'src/users.js', line: 17, bytes }] });
  const pts = points(4, (s) => (s / 6) * MiB).map((p, i) => ({ ...p, sites: flat(i * 3 * MiB) }));
  t.like(confirmedLeak(pts, episode, MIN_GROWTH).sites[0], { fn: 'cacheUser', file: 'src/users.js', line: 17, share: 1, bytesPerMin: 9 * MiB }); // 3 MiB every 20 s
  const none = points(4, (s) => (s / 6) * MiB, { profiler: 'the worker runs with --inspect; the heap profiler is left to the debugger' });
  const found = confirmedLeak(none, episode, MIN_GROWTH);
  t.is(found.sites, null);
  t.regex(found.sitesUnavailable, /--inspect/);
});

test('confirmedLeak: points from before the suspicion began are not read', (t) => {
  const old = points(4, (s) => (s / 6) * MiB);
  t.is(confirmedLeak(old, { since: T0 + 200_000, heldUntil: 0, confirmedAt: null }, MIN_GROWTH), null);
});

// A window whose heap floor follows f(seconds since ready), one sample a second.
function worker(seconds, f, pointsList = []) {
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  for (let s = 0; s <= seconds; s++) window.push({ t: T0 + s * 1000, heapFloor: 30 * MiB + f(s), heapUsed: 30 * MiB + f(s) });
  return { w: { window, readyAt: T0, startedAt: T0 - 500, points: pointsList }, now: T0 + seconds * 1000 };
}
const opts = { minGrowth: MIN_GROWTH, pollInterval: 1000 };

test('confirmStep: a floor rising at the minimum rate raises a suspicion and asks for a point', (t) => {
  const { w, now } = worker(30, (s) => (s / 60) * MiB);
  const r = confirmStep(w, newConfirmState(), now, opts);
  t.is(r.action, 'probe');
  t.is(r.state.since, now);
});

test('confirmStep: a flat floor, or one too young to judge, asks for nothing', (t) => {
  const flat = worker(60, () => 0);
  t.is(confirmStep(flat.w, newConfirmState(), flat.now, opts).action, null);
  const young = worker(8, (s) => (s / 6) * MiB);
  t.is(confirmStep(young.w, newConfirmState(), young.now, opts).action, null);
});

// A window with GC counts: `floor(s)` the polled floor, `gcs(s)` the GCs run by second s.
function workerGc(seconds, floor, gcs) {
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  for (let s = 0; s <= seconds; s++) window.push({ t: T0 + s * 1000, heapFloor: 30 * MiB + floor(s), heapUsed: 30 * MiB + floor(s), gcCount: gcs(s) });
  return { w: { window, readyAt: T0, startedAt: T0 - 500, points: [] }, now: T0 + seconds * 1000 };
}

test('confirmStep: a floor that rises only while no GC runs (an idle worker allocating its poll replies) raises no suspicion', (t) => {
  const KiB = 1024;
  // 15 KiB/s of garbage, a scavenge every 70 s taking the floor back to the base
  const idle = workerGc(200, (s) => (s % 70) * 15 * KiB, (s) => Math.floor(s / 70));
  for (const now of [idle.now, T0 + 69_000, T0 + 139_000]) t.is(confirmStep(idle.w, newConfirmState(), now, opts).action, null, `at ${(now - T0) / 1000} s`);
  // the same floor without GC counts (an agent that does not send them): the trend alone, as before
  const { w, now } = worker(69, (s) => s * 15 * KiB);
  t.is(confirmStep(w, newConfirmState(), now, opts).action, 'probe');
});

test('confirmStep: a leak is suspected from the floors after GCs, under load or quiet', (t) => {
  const leak = (s) => (s / 60) * MiB;
  const busy = workerGc(60, leak, (s) => s);
  t.is(confirmStep(busy.w, newConfirmState(), busy.now, opts).action, 'probe', 'a GC every second');
  // quiet: a scavenge every 30 s; between them 15 KiB/s of garbage on top of the leak
  const quiet = workerGc(95, (s) => leak(s) + (s % 30) * 15 * 1024, (s) => Math.floor(s / 30));
  t.is(confirmStep(quiet.w, newConfirmState(), quiet.now, opts).action, 'probe', 'a GC every 30 s');
  // the GC floors flat while the floor between them climbs: not suspected
  const flat = workerGc(95, (s) => (s % 30) * 40 * 1024, (s) => Math.floor(s / 30));
  t.is(confirmStep(flat.w, newConfirmState(), flat.now, opts).action, null);
});

test('confirmStep: within a suspicion, one point per spacing; two points that do not rise end it and hold it off', (t) => {
  const since = T0 + 30_000;
  const st = { since, heldUntil: 0, confirmedAt: null };
  const p = (dt, mib) => ({ at: since + dt, heapAfter: 30 * MiB + mib * MiB, forced: true, pauseMs: 4, sites: null });
  const rising = worker(60, (s) => (s / 60) * MiB, [p(0, 0)]);
  t.is(confirmStep(rising.w, st, since + 10_000, opts).action, null, 'too soon after the last point');
  t.is(confirmStep(rising.w, st, since + CONFIRM.spacingMs, opts).action, 'probe');
  const flat = worker(60, () => 0, [p(0, 0), p(20_000, 0.01)]);
  const ended = confirmStep(flat.w, st, since + 25_000, opts);
  t.is(ended.action, 'stop');
  t.is(ended.state.since, null);
  t.true(ended.state.heldUntil > since + 25_000);
  t.is(confirmStep(worker(60, (s) => (s / 60) * MiB).w, ended.state, since + 30_000, opts).action, null, 'held off');
});

test('confirmStep: forced pauses over the budget stop new points', (t) => {
  const { w, now } = worker(30, (s) => (s / 6) * MiB);
  w.points = [{ at: now - 60_000, heapAfter: 1, forced: true, pauseMs: CONFIRM.budgetShare * CONFIRM.budgetMs, sites: null }];
  t.is(confirmStep(w, newConfirmState(), now, opts).action, null);
  w.points[0].forced = false; // a GC the worker ran by itself costs the budget nothing
  t.is(confirmStep(w, newConfirmState(), now, opts).action, 'probe');
});

// A 4 s sawtooth over a 24 MiB base, its full GCs landing ever higher on the ramps: the shape of
// the recorded false verdict (four points 20 s apart, +18 MiB/min, r² 1) while the polled floor
// fell back to the base every period.
const SAW = { base: 24 * MiB, points: [12, 18, 24, 30] };
const sawPoints = () => SAW.points.map((mib, i) => ({ at: T0 + 40_000 + i * 20_000, heapAfter: SAW.base + mib * MiB, forced: false, pauseMs: null, sites: null }));
function polled(seconds, floorAt) {
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  for (let s = 0; s <= seconds; s++) window.push({ t: T0 + s * 1000, heapFloor: floorAt(s), heapUsed: floorAt(s) + 8 * MiB });
  return window;
}
const sawEpisode = { since: T0 + 40_000, heldUntil: 0, confirmedAt: null };

test('confirmedLeak: a sawtooth whose points rise by aliasing is refuted by its floor falling back to the base', (t) => {
  const pts = sawPoints();
  t.not(confirmedLeak(pts, sawEpisode, MIN_GROWTH), null, 'the points alone read as a leak');
  const window = polled(110, (s) => SAW.base + (s % 4) * 15 * MiB);
  t.is(confirmedLeak(pts, sawEpisode, MIN_GROWTH, { window, pollInterval: 1000 }), null);
});

test('confirmedLeak: a leak\'s floor, scavenge garbage above it and a natural point read 1.5 MiB high, does not refute it', (t) => {
  const rate = (10 * MiB) / 60; // 3.3 MiB between points
  const retained = (s) => 40 * MiB + rate * s;
  const pts = [0, 20, 40, 60].map((s, i) => ({ at: T0 + s * 1000, heapAfter: Math.round(retained(s) + (i === 1 ? 1.5 * MiB : 0)), forced: i !== 1, pauseMs: 5, sites: null }));
  const window = polled(70, (s) => retained(s) + (s % 7) * 0.4 * MiB);
  const found = confirmedLeak(pts, { since: T0, heldUntil: 0, confirmedAt: null }, MIN_GROWTH, { window, pollInterval: 1000 });
  t.not(found, null);
  t.is(found.kind, 'heap');
});

test('confirmStep: a floor that fell back below a point ends the suspicion, external memory held or not', (t) => {
  const pts = sawPoints().slice(0, 2);
  const w = { window: polled(70, (s) => SAW.base + (s % 4) * 15 * MiB), readyAt: T0, startedAt: T0 - 500, points: pts };
  const ended = confirmStep(w, sawEpisode, T0 + 70_000, opts);
  t.is(ended.action, 'stop');
  t.is(ended.state.since, null);
  // The same heap, while an external suspicion's points still rise and hold: the episode goes on.
  const ext = pts.map((p, i) => ({ ...p, externalAfter: 10 * MiB + i * 2 * MiB }));
  const window = polled(70, (s) => SAW.base + (s % 4) * 15 * MiB);
  for (const s of window.samples) s.external = 14 * MiB;
  const on = confirmStep({ ...w, window, points: ext }, { ...sawEpisode, external: true }, T0 + 70_000, opts);
  t.not(on.action, 'stop');
});

// The window rule's verdict at T0 + 300 s over a 5-minute window, its heap floor +2.4 MiB/min (an LRU
// at its cap on Node 24: old garbage piling up between major GCs), against the points taken by then.
const WINDOW_VERDICT = { kind: 'heap', partGrowthBytesPerSec: (2.4 * MiB) / 60, windowMs: 300_000 };
const NOW = T0 + 300_000;
// [title, points, verdict, refuted?]
const REFUTES = [
  ['flat points over the window', points(12, () => 0, { at: undefined }).map((p, i) => ({ ...p, at: T0 + 40_000 + i * 20_000 })), WINDOW_VERDICT, true],
  ['two flat points 2 minutes apart', [{ at: T0 + 100_000, heapAfter: 40 * MiB }, { at: T0 + 220_000, heapAfter: 40.2 * MiB }], WINDOW_VERDICT, true],
  ['points that rise with the verdict', points(12, (s) => (2.4 * s / 60) * MiB), WINDOW_VERDICT, false],
  ['points at 0.6× its rate', points(12, (s) => (0.6 * 2.4 * s / 60) * MiB), WINDOW_VERDICT, false],
  ['points spanning 40 s only: too few to speak', [0, 20, 40].map((s) => ({ at: T0 + 200_000 + s * 1000, heapAfter: 40 * MiB })), WINDOW_VERDICT, false],
  ['flat points older than the window', points(6, () => 0, {}).map((p) => ({ ...p, at: p.at - 200_000 })), WINDOW_VERDICT, false],
  ['no points', [], WINDOW_VERDICT, false],
  ['an RSS verdict, flat points', points(12, () => 0).map((p) => ({ ...p, at: p.at + 40_000 })), { ...WINDOW_VERDICT, kind: 'rss', partGrowthBytesPerSec: (14 * MiB) / 60 }, true],
  ['an RSS verdict, the heap leaking at minGrowth under it', points(12, (s) => (s / 60) * MiB).map((p) => ({ ...p, at: p.at + 40_000 })), { ...WINDOW_VERDICT, kind: 'rss', partGrowthBytesPerSec: (14 * MiB) / 60 }, false],
  ['a native verdict, flat points: not the heap\'s to refute', points(12, () => 0), { ...WINDOW_VERDICT, kind: 'native' }, false],
];
for (const [title, pts, found, refuted] of REFUTES) {
  test(`pointsRefute: ${title} → ${refuted ? 'refuted' : 'stands'}`, (t) => {
    t.is(pointsRefute(pts, found, NOW, MIN_GROWTH), refuted);
  });
}

test('withoutStep: one interval 1.5x the next largest is brought down to the median; otherwise the points are as they were', (t) => {
  const at = (ms) => ms.map((m, i) => ({ at: T0 + i * 20_000, heapAfter: m * MiB }));
  const rises = (pts) => pts.slice(1).map((p, i) => Math.round(((p.heapAfter - pts[i].heapAfter) / MiB) * 100) / 100);
  t.deepEqual(rises(withoutStep(at([10, 11, 13, 14, 15]), 'heapAfter')), [1, 1, 1, 1], 'a doubling of 2 among rises of 1');
  t.deepEqual(rises(withoutStep(at([10, 11, 12.4, 13.4, 14.4]), 'heapAfter')), [1, 1.4, 1, 1], '1.4x the next: kept');
  t.deepEqual(rises(withoutStep(at([10, 11, 13, 14]), 'heapAfter')), [1, 2, 1], 'four points: halves would overlap, kept');
  t.deepEqual(rises(withoutStep(at([10, 13, 16, 17, 18]), 'heapAfter')), [3, 3, 1, 1], 'two large ones: no single step');
});
