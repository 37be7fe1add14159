import test from 'ava';
import { survivedGcs, confirmStep, newConfirmState, samplesSites, CONFIRM as C } from '../../../src/core/leak/heap-confirm.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { prng } from '../../fixtures/series/generate.js';

// survivedGcs as it read every sample object of the lookback forward, before it searched from the
// newest back, stopped at the first counted sample older than suspectMs, and read the window's
// columns: the two must agree exactly. A floor of NaN counts as no floor, as the columns read it
// (a poll arrives as JSON, which cannot carry a NaN).
const has = (v) => typeof v === 'number' && !Number.isNaN(v);

function reference(samples, field, since, now, minGrowth) {
  let first = samples.findIndex((s) => s.t >= since);
  if (first < 0) first = samples.length;
  let counted = false;
  const after = [];
  for (let i = Math.max(1, first); i < samples.length; i++) {
    const s = samples[i];
    const before = samples[i - 1].gcCount;
    if (typeof s.gcCount !== 'number' || typeof before !== 'number') continue;
    counted = true;
    if (s.gcCount > before && has(s[field])) after.push(s);
  }
  if (!counted) return true;
  const last = after.at(-1);
  if (!last || now - last.t > C.suspectMs) return false;
  let low = null;
  for (const s of after) if (s.t <= last.t - C.suspectMinMs && (low === null || s[field] < low[field])) low = s;
  return low !== null && (last[field] - low[field]) / ((last.t - low.t) / 1000) >= C.suspect * minGrowth;
}

const MiB = 1024 * 1024;

/** A worker's window: one sample a second, GCs every `gcEvery` s on average, the floor rising at `rise` B/s. */
function windowOf(r, { n, gcEvery, rise, gaps, nulls, nans }) {
  const samples = [];
  let gcCount = 0;
  for (let i = 0; i < n; i++) {
    if (r() < 1 / gcEvery) gcCount += 1 + Math.floor(r() * 2);
    const floor = 20 * MiB + rise * i + (r() - 0.5) * 64 * 1024;
    samples.push({
      t: 1_000_000 + i * 1000 + Math.floor(r() * 50),
      gcCount: r() < gaps ? null : gcCount,
      heapFloor: r() < nulls ? null : r() < nans ? NaN : Math.round(floor / (r() < 0.2 ? 1 : 4096)) * (r() < 0.2 ? 1 : 4096),
    });
  }
  return samples;
}

test('survivedGcs gives what reading every sample forward gave, on 4000 recorded-like windows', (t) => {
  const r = prng(27); // seeded: a failing case replays
  let trues = 0;
  let cases = 0;
  for (let k = 0; k < 4000; k++) {
    const o = {
      n: 1 + Math.floor(r() * 200), gcEvery: [1, 3, 10, 40, 400][Math.floor(r() * 5)],
      rise: [0, 2000, 20_000, 200_000][Math.floor(r() * 4)],
      gaps: [0, 0.05, 1][Math.floor(r() * 3)], nulls: [0, 0.1][Math.floor(r() * 2)], nans: [0, 0.05][Math.floor(r() * 2)],
    };
    const samples = windowOf(r, o);
    const end = samples.at(-1).t;
    const now = end + Math.floor(r() * 40_000);
    const since = now - [C.gcLookbackMs, 60_000, 10_000][Math.floor(r() * 3)];
    const minGrowth = [1 * MiB / 60, 10 * MiB / 60][Math.floor(r() * 2)];
    const want = reference(samples, 'heapFloor', since, now, minGrowth);
    const window = new SampleWindow({ maxAgeMs: Infinity });
    for (const s of samples) window.push(s);
    const got = survivedGcs(window, 'heapFloor', since, now, minGrowth);
    if (got !== want) return t.fail(`case ${k} (${JSON.stringify(o)}): ${got}, reading forward gave ${want}`);
    if (want) trues++;
    cases++;
  }
  // The table must hold both answers in number, or agreeing proves little.
  t.true(trues > 400 && cases - trues > 400, `${trues} true of ${cases}`);
});

test('survivedGcs measures from the earliest of equal lows: the rise over the longer time', (t) => {
  // Floors after GCs at 1 s and 20 s are equal; at 40 s one is 256 KiB higher. From 1 s that is
  // 6.7 KiB/s, below half of 1 MiB a minute; from 20 s it would be 12.8 KiB/s, above it.
  const window = new SampleWindow({ maxAgeMs: Infinity });
  const afterGcAt = { 1: 10 * MiB, 20: 10 * MiB, 40: 10 * MiB + 256 * 1024 };
  let gcCount = 0;
  for (let i = 0; i <= 40; i++) {
    if (afterGcAt[i] !== undefined) gcCount++;
    window.push({ t: i * 1000, gcCount, heapFloor: afterGcAt[i] ?? 12 * MiB });
  }
  t.false(survivedGcs(window, 'heapFloor', -120_000, 40_000, MiB / 60));
  t.true(survivedGcs(window, 'heapFloor', 15_000, 40_000, MiB / 60), 'from 20 s alone the same rise is a suspicion');
});

/**
 * A worker's window: a scavenge every `gcEvery` polls (1: busy), a major GC every `majorEvery` s. After each
 * scavenge the floor holds the old garbage gathered since the last major GC (`garbage` B/s);
 * after a major GC only what the app retains, which rises at `leak` B/s.
 */
function busyWindow({ seconds, majorEvery, garbage, leak, gcEvery = 1, external = () => undefined, highAfterMajor = () => 0 }) {
  const window = new SampleWindow({ maxAgeMs: Infinity });
  let majors = 0;
  for (let i = 0; i <= seconds; i++) {
    const major = i > 0 && i % majorEvery === 0;
    if (major) majors++;
    const sinceMajor = i % majorEvery;
    const high = sinceMajor === 0 ? highAfterMajor(majors) : 0;
    window.push({ t: i * 1000, gcCount: Math.floor(i / gcEvery), majorGcCount: majors, heapFloor: 10 * MiB + leak * i + garbage * sinceMajor + high, external: external(i) });
  }
  return window;
}

test('survivedGcs judges a busy worker by the floors after its major GCs', (t) => {
  const o = { seconds: 120, garbage: 200 * 1024 };
  // Old garbage climbing 200 KiB/s between major GCs every 12 s: after every scavenge the floor
  // reads higher than 15 s before, but what survives the major GCs is flat.
  t.false(survivedGcs(busyWindow({ ...o, majorEvery: 12, leak: 0 }), 'heapFloor', 0, 120_000, MiB / 60));
  // The same worker leaking 1 MiB a minute: its major GCs' floors rise at that rate.
  t.true(survivedGcs(busyWindow({ ...o, majorEvery: 12, leak: MiB / 60 }), 'heapFloor', 0, 120_000, MiB / 60));
  // Major GCs too rare to judge by (one in the lookback, none to compare it with): every GC
  // counts, as without the counts.
  const rare = busyWindow({ ...o, majorEvery: 100, leak: 0 });
  t.true(survivedGcs(rare, 'heapFloor', 0, 120_000, MiB / 60), 'floors after scavenges rose: a suspicion, as before');
  // Major GCs 55 s apart, the newest 50 s ago (at 55 and 110 s; read at 160 s over 120 s): they
  // still judge, and the floors after them are flat.
  t.false(survivedGcs(busyWindow({ ...o, seconds: 160, majorEvery: 55, leak: 0 }), 'heapFloor', 40_000, 160_000, MiB / 60));
  t.true(survivedGcs(busyWindow({ ...o, seconds: 160, majorEvery: 55, leak: MiB / 60 }), 'heapFloor', 40_000, 160_000, MiB / 60));
  // A quiet worker (a GC every 4 polls) with a major GC in the last suspectMs is judged by its major
  // GCs too: flat after them, though the floor after its newest GC (a scavenge, at 116 s) is above
  // the one after the major GC at 108 s.
  t.false(survivedGcs(busyWindow({ ...o, seconds: 116, majorEvery: 12, leak: 0, gcEvery: 4 }), 'heapFloor', 0, 116_000, MiB / 60));
  t.true(survivedGcs(busyWindow({ ...o, seconds: 116, majorEvery: 12, leak: MiB / 60, gcEvery: 4 }), 'heapFloor', 0, 116_000, MiB / 60));
  // Its newest major GC older than that (at 80 s, read at 116 s): every GC counts, as before.
  t.true(survivedGcs(busyWindow({ ...o, seconds: 116, majorEvery: 40, leak: 0, gcEvery: 4 }), 'heapFloor', 0, 116_000, MiB / 60));
});

test('survivedGcs fits the floors after major GCs: a flat heap read high at its newest major GC is no rise, a leak under the same scatter is', (t) => {
  // A worker's own major GCs read up to 2.8 MiB above what it retains: here 0-2 MiB, the newest
  // (the 19th, at 114 s) 2 MiB high, the lowest 0. Newest against lowest, that is a rise of
  // 2 MiB in well under two minutes, above half of 1 MiB a minute.
  const highAfterMajor = (k) => (k === 19 ? 2 * MiB : ((k * 7) % 5) * 0.25 * MiB);
  const o = { seconds: 116, majorEvery: 6, garbage: 200 * 1024, highAfterMajor };
  t.false(survivedGcs(busyWindow({ ...o, leak: 0 }), 'heapFloor', 0, 116_000, MiB / 60));
  t.true(survivedGcs(busyWindow({ ...o, leak: MiB / 60 }), 'heapFloor', 0, 116_000, MiB / 60));
  // Two floors after major GCs 15 s or more apart: their rise judges, as one interval.
  const two = { seconds: 60, majorEvery: 25, garbage: 200 * 1024 };
  t.false(survivedGcs(busyWindow({ ...two, leak: 0 }), 'heapFloor', 0, 60_000, MiB / 60));
  t.true(survivedGcs(busyWindow({ ...two, leak: MiB / 60 }), 'heapFloor', 0, 60_000, MiB / 60));
});

// A busy worker suspected with one major GC in its lookback (its floors after scavenges climbing
// with old garbage): the suspicion's first point, a full GC, is compared with the floor after that
// major GC before the sites' profiler starts.
const opts = { minGrowth: MiB / 60, pollInterval: 1000 };
const firstPoint = (at, heapAfter) => ({ at, heapAfter, forced: true, pauseMs: 5, sites: null, profiler: null });

test('a busy worker\'s suspicion begins without the sites\' profiler, and its first point ends it when flat since its last major GC', (t) => {
  const o = { seconds: 140, majorEvery: 100, garbage: 200 * 1024 };
  const healthy = { window: busyWindow({ ...o, leak: 0 }), readyAt: 0, startedAt: 0, points: [] };
  const start = confirmStep(healthy, newConfirmState(), 140_000, opts);
  t.is(start.action, 'probe', 'the floors after scavenges rose: a suspicion');
  t.deepEqual(start.state.ref, { at: 100_000, heapAfter: 10 * MiB });
  t.false(samplesSites([], start.state), 'the first point samples no sites');
  const p1 = firstPoint(141_000, 10 * MiB + 30 * 1024);
  const ended = confirmStep({ ...healthy, points: [p1] }, start.state, 141_500, opts);
  t.is(ended.action, 'stop');
  t.is(ended.state.heldUntil, 141_500 + C.holdMs);
});

test('a busy worker leaking since its last major GC goes on to the sites\' profiler at its second point', (t) => {
  const leak = MiB / 60;
  const leaking = { window: busyWindow({ seconds: 140, majorEvery: 100, garbage: 200 * 1024, leak }), readyAt: 0, startedAt: 0, points: [] };
  const start = confirmStep(leaking, newConfirmState(), 140_000, opts);
  t.is(start.action, 'probe');
  t.false(samplesSites([], start.state));
  const p1 = firstPoint(141_000, Math.round(10 * MiB + leak * 141));
  const next = confirmStep({ ...leaking, points: [p1] }, start.state, 141_500, opts);
  t.is(next.action, null, 'the next point waits its spacing');
  t.is(next.state.since, 140_000, 'the suspicion goes on');
  t.true(samplesSites([p1], next.state), 'the second point samples the sites');
});

// External memory over the last 30 s before 140 s, in 5 s steps (MiB above 2 MiB, oldest first).
const externalSteps = (mib) => (i) => 2 * MiB + Math.round(mib[5 - Math.min(5, Math.floor((140 - i) / 5))] * MiB);

test('external memory rising on noise starts no external suspicion, and a heap one beside it has no reference to end it early', (t) => {
  const o = { seconds: 140, majorEvery: 100, garbage: 200 * 1024, leak: 0 };
  // Up and down by 0.6-0.7 MiB: fitted at 1.1x minGrowth with r² 0.21.
  const noisy = confirmStep({ window: busyWindow({ ...o, external: externalSteps([0, 0.6, 0, 0.7, 0.1, 0.8]) }), readyAt: 0, startedAt: 0, points: [] }, newConfirmState(), 140_000, opts);
  t.is(noisy.action, 'probe', 'the heap is suspected');
  t.false(noisy.state.external, 'the Buffer sampler does not run');
  t.is(noisy.state.ref, null, 'the first point does not end it against its last major GC');
  t.true(samplesSites([], noisy.state));
  // Climbing 0.1 MiB a step: the same rate, r² 1.
  const steady = confirmStep({ window: busyWindow({ ...o, external: externalSteps([0, 0.1, 0.2, 0.3, 0.4, 0.5]) }), readyAt: 0, startedAt: 0, points: [] }, newConfirmState(), 140_000, opts);
  t.true(steady.state.external);
  t.is(steady.state.ref, null);
});

test('without a major GC to compare with, or quiet, a worker\'s suspicion samples the sites from its first point', (t) => {
  const o = { garbage: 200 * 1024, leak: 0 };
  // No major GC since it started (a worker in its first minutes).
  const young = confirmStep({ window: busyWindow({ ...o, seconds: 140, majorEvery: 1000 }), readyAt: 0, startedAt: 0, points: [] }, newConfirmState(), 140_000, opts);
  t.is(young.action, 'probe');
  t.is(young.state.ref, null);
  t.true(samplesSites([], young.state));
  // A quiet worker (a GC every 4 polls) is suspected as before, its floors after GCs rising.
  const quiet = confirmStep({ window: busyWindow({ ...o, seconds: 140, majorEvery: 100, gcEvery: 4, leak: MiB / 60 }), readyAt: 0, startedAt: 0, points: [] }, newConfirmState(), 140_000, opts);
  t.is(quiet.action, 'probe');
  t.is(quiet.state.ref, null);
  t.true(samplesSites([], quiet.state));
});

// A quiet worker suspected again once the hold after a flat suspicion ends: its first point is
// compared with that suspicion's last point (the heap after a full GC) before the sites' profiler starts.
test('a worker suspected again compares its first point with the last one of its earlier suspicion', (t) => {
  const o = { seconds: 140, majorEvery: 1000, garbage: 200 * 1024, gcEvery: 4 };
  const earlier = firstPoint(70_000, 10 * MiB);
  const healthy = { window: busyWindow({ ...o, leak: 0 }), readyAt: 0, startedAt: 0, points: [earlier] };
  const start = confirmStep(healthy, newConfirmState(), 140_000, opts);
  t.is(start.action, 'probe', 'the floors after scavenges rose: a suspicion');
  t.deepEqual(start.state.ref, { at: 70_000, heapAfter: 10 * MiB });
  t.false(samplesSites(healthy.points, start.state), 'the first point samples no sites');
  const flat = firstPoint(141_000, 10 * MiB + 100 * 1024);
  t.is(confirmStep({ ...healthy, points: [earlier, flat] }, start.state, 141_500, opts).action, 'stop');

  const leak = MiB / 60;
  const leakingEarlier = firstPoint(70_000, Math.round(10 * MiB + leak * 70));
  const leaking = { window: busyWindow({ ...o, leak }), readyAt: 0, startedAt: 0, points: [leakingEarlier] };
  const go = confirmStep(leaking, newConfirmState(), 140_000, opts);
  t.truthy(go.state.ref);
  const p1 = firstPoint(141_000, Math.round(10 * MiB + leak * 141));
  const next = confirmStep({ ...leaking, points: [leakingEarlier, p1] }, go.state, 141_500, opts);
  t.is(next.state.since, 140_000, 'the suspicion goes on');
  t.true(samplesSites([leakingEarlier, p1], next.state), 'the second point samples the sites');
});

test('a point older than the lookback, or one of the new suspicion\'s own, is no reference', (t) => {
  const o = { seconds: 200, majorEvery: 1000, garbage: 200 * 1024, gcEvery: 4, leak: 0 };
  const old = confirmStep({ window: busyWindow(o), readyAt: 0, startedAt: 0, points: [firstPoint(70_000, 10 * MiB)] }, newConfirmState(), 200_000, opts);
  t.is(old.action, 'probe');
  t.is(old.state.ref, null, '130 s old');
  const own = confirmStep({ window: busyWindow(o), readyAt: 0, startedAt: 0, points: [firstPoint(185_000, 10 * MiB)] }, newConfirmState(), 200_000, opts);
  t.is(own.state.ref, null, 'within a spacing: the new episode\'s first point');
  t.true(samplesSites([], own.state));
});
