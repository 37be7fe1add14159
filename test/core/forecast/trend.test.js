import test from 'ava';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { linearTrend, trendSince, baselineSeries, growth, levelShift, projectTimeToLimit, windowBaseline } from '../../../src/core/forecast/trend.js';
import { makeSeries } from '../../fixtures/series/generate.js';

const MiB = 1024 * 1024;
const T0 = 1_700_000_000_000;
const line = (n, stepMs, f, t0 = T0) => Array.from({ length: n }, (_, i) => [t0 + i * stepMs, f(i * stepMs / 1000)]);
const near = (t, actual, expected, tol, what = '') => t.true(Math.abs(actual - expected) <= tol, `${what} ${actual} ≉ ${expected} ± ${tol}`);

function windowOf(series) {
  const w = new SampleWindow({ maxAgeMs: 3_600_000 });
  for (const s of series) w.push(s);
  return w;
}

for (const [name, points, slope, r2] of [
  ['rising 1 MiB/s', line(60, 1000, (s) => 100 * MiB + s * MiB), MiB, 1],
  ['falling 2 units/s', line(10, 500, (s) => 50 - 2 * s), -2, 1],
  ['flat', line(10, 1000, () => 7), 0, 1],
  ['at t=0', line(5, 1000, (s) => 3 + s, 0), 1, 1],
]) {
  test(`linearTrend: ${name}`, (t) => {
    const fit = linearTrend(points);
    near(t, fit.slope, slope, Math.abs(slope) * 1e-9 + 1e-9, 'slope');
    near(t, fit.r2, r2, 1e-9, 'r2');
    t.is(fit.n, points.length);
    t.is(fit.spanMs, points.at(-1)[0] - points[0][0]);
    // intercept is the value at t = 0 ms, so value(t) = intercept + slope · t / 1000
    const [tl, vl] = points.at(-1);
    near(t, fit.intercept + fit.slope * tl / 1000, vl, Math.abs(vl) * 1e-6 + 1e-6, 'fitted end');
  });
}

test('linearTrend: epoch-sized timestamps keep full precision', (t) => {
  // Uncentred sums of t² at 1.7e12 ms would lose every digit of a 1 byte/s slope.
  const fit = linearTrend(line(30, 1000, (s) => 500 * MiB + s));
  near(t, fit.slope, 1, 1e-6);
  near(t, fit.r2, 1, 1e-9);
});

test('linearTrend: noise lowers r2', (t) => {
  const fit = linearTrend(line(20, 1000, (s) => s + (s % 2 ? 5 : -5)));
  t.true(fit.r2 > 0.3 && fit.r2 < 0.9, String(fit.r2));
});

for (const [name, points] of [
  ['no points', []],
  ['two points', line(2, 1000, (s) => s)],
  ['zero span', [[T0, 1], [T0, 2], [T0, 3]]],
]) {
  test(`linearTrend: ${name} → null`, (t) => t.is(linearTrend(points), null));
}

test('trendSince: the line linearTrend fits through the window\'s [t, value] series, read from its columns (nulls, undefined and drops)', (t) => {
  const w = new SampleWindow({ maxAgeMs: 90_000, maxSamples: 80 });
  const t0 = 1.7e12;
  for (let i = 0; i < 300; i++) {
    const gap = [1000, 1000, 3000, 250][i % 4];
    const v = 50e6 + i * 4096 + ((i * 7919) % 13) * 65536;
    w.push({ t: (w.last()?.t ?? t0) + gap, treeRss: i % 9 === 0 ? null : v, native: i % 4 === 1 ? undefined : v / 3 });
    if (i % 10) continue;
    for (const field of ['treeRss', 'native']) {
      for (const since of [-Infinity, w.last().t - 60_000, w.last().t - 2000, w.last().t + 1]) {
        t.deepEqual(trendSince(w, field, since), linearTrend(w.series(field, since)), `${field} after push ${i}, since ${since}`);
      }
    }
  }
});

test('baselineSeries: keeps the minimum of each bucket, counted back from the newest point', (t) => {
  // A sawtooth 20 → 80 over 4 s on top of a baseline that rises 1 per second.
  const pts = line(40, 1000, (s) => s + 20 + 20 * (s % 4));
  const base = baselineSeries(pts, 4000);
  t.is(base.length, 10);
  t.deepEqual(base.at(-1), [T0 + 36_000, 56]);
  for (const [tm, v] of base) t.is(v, (tm - T0) / 1000 + 20);
  const fit = linearTrend(base);
  near(t, fit.slope, 1, 1e-9);
});

test('baselineSeries: an oldest bucket less than half covered is dropped, empty input gives []', (t) => {
  // 0..10 s in 4 s buckets: (6,10], (2,6] are whole and (-2,2] is half covered: kept.
  t.is(baselineSeries(line(11, 1000, (s) => s), 4000).length, 3);
  // 0..9 s: (5,9], (1,5] are whole; (-3,1] holds 1 s of 4, so t=0 is dropped.
  t.is(baselineSeries(line(10, 1000, (s) => s), 4000).length, 2);
  t.deepEqual(baselineSeries([], 1000), []);
  t.deepEqual(baselineSeries(line(3, 1000, (s) => s), 0), []);
});

test('windowBaseline: reads Sample fields in place and skips nulls', (t) => {
  const w = windowOf(line(20, 1000, (s) => s).map(([tm, v], i) => ({ t: tm, heapUsed: i % 3 ? v : null })));
  const base = windowBaseline(w, 'heapUsed', { now: T0 + 19_000, windowMs: 20_000, bucketMs: 5000 });
  t.is(base.length, 4);
  for (const [, v] of base) t.not(v, null);
});

const sawLeak = (perMin, seed = 1) => makeSeries({ seconds: 360, seed, heap: (s) => 60 * MiB + (s * perMin) / 60 });

test('growth: the post-GC baseline of a leaking sawtooth', (t) => {
  const w = windowOf(sawLeak(2 * MiB));
  const g = growth(w, 'heapUsed', { now: w.last().t, windowMs: 300_000, bucketMs: 25_000 });
  near(t, g.perSec * 60, 2 * MiB, 0.25 * MiB, 'perSec');
  t.true(g.r2 > 0.9, `r2 ${g.r2}`);
  t.true(g.rising > 0.75);
  t.true(g.jumpShare < 0.4);
  t.is(g.n, 12);
  t.true(g.coverage > 0.99);
});

test('growth: a steady sawtooth has no trend', (t) => {
  const w = windowOf(sawLeak(0));
  const g = growth(w, 'heapUsed', { now: w.last().t, windowMs: 300_000, bucketMs: 25_000 });
  t.true(Math.abs(g.perSec * 60) < 1 * MiB, `${g.perSec * 60 / MiB} MiB/min`);
  t.true(g.r2 < 0.5);
});

test('growth: recentPerSec keeps pace in a leak and falls behind in a warm-up', (t) => {
  const opts = (w) => ({ now: w.last().t, windowMs: 300_000, bucketMs: 25_000 });
  const leak = windowOf(sawLeak(4 * MiB));
  const g = growth(leak, 'heapUsed', opts(leak));
  t.true(g.recentPerSec > 0.7 * g.perSec, `${g.recentPerSec} vs ${g.perSec}`);
  const warm = windowOf(makeSeries({ seconds: 300, seed: 4, heap: (s) => 60 * MiB + 60 * MiB * (1 - Math.exp(-s / 60)) }));
  const w = growth(warm, 'heapUsed', opts(warm));
  t.true(w.recentPerSec < 0.3 * w.perSec, `${w.recentPerSec} vs ${w.perSec}`);
});

test('growth: a step carries its whole rise in one jump', (t) => {
  const w = windowOf(makeSeries({ seconds: 360, seed: 3, heap: (s) => 60 * MiB + (s >= 200 ? 100 * MiB : 0) }));
  const g = growth(w, 'heapUsed', { now: w.last().t, windowMs: 300_000, bucketMs: 25_000 });
  t.true(g.perSec > 0);
  t.true(g.jumpShare > 0.6, String(g.jumpShare));
  t.true(g.r2 < 0.8);
});

test('growth: coverage is history over window', (t) => {
  const w = windowOf(sawLeak(1 * MiB).slice(0, 151));
  const g = growth(w, 'heapUsed', { now: w.last().t, windowMs: 300_000, bucketMs: 25_000 });
  near(t, g.coverage, 0.5, 0.01);
  t.is(g.spanMs, 150_000);
});

test('growth: null when fewer than 3 buckets have values', (t) => {
  const w = windowOf(sawLeak(1 * MiB).slice(0, 40));
  t.is(growth(w, 'heapUsed', { now: w.last().t, windowMs: 300_000, bucketMs: 25_000 }), null);
  t.is(growth(w, 'pss', { now: w.last().t, windowMs: 300_000, bucketMs: 5_000 }), null);
  t.is(growth(new SampleWindow({ maxAgeMs: 1000 }), 'rss', { now: T0, windowMs: 300_000, bucketMs: 25_000 }), null);
});

test('levelShift: two flat levels, one outlier ignored', (t) => {
  const pts = [5, 5, 90, 5, 5, 5, 105, 105, 105, 105].map((v, i) => [T0 + i * 1000, v]);
  const fit = levelShift(pts, 3);
  t.like(fit, { before: 5, after: 105, explained: 1, spread: 0 });
  t.is(fit.points.length, 9);
  t.is(fit.points[fit.s][0], T0 + 6000);
  t.true(fit.vsLine < 0.1);
});

test('levelShift: a ramp fits a line better than two levels', (t) => {
  const fit = levelShift(line(12, 1000, (s) => s * 10), 3);
  t.true(fit.vsLine > 1, String(fit.vsLine));
  t.true(fit.spread > 20);
});

test('levelShift: too few points, or nothing after the split, is null', (t) => {
  t.is(levelShift(line(5, 1000, (s) => s), 3), null);
  t.is(levelShift(line(8, 1000, () => 1), 3), null);
});

for (const [current, perSec, limit, expected] of [
  [100, 10, 200, 10],
  [0, 1, 60, 60],
  [200, 10, 200, 0],
  [300, 10, 200, 0],
  [300, -10, 200, 0],
  [100, 0, 200, null],
  [100, -5, 200, null],
  [100, 10, null, null],
  [null, 10, 200, null],
  [100, null, 200, null],
]) {
  test(`projectTimeToLimit(${current}, ${perSec}, ${limit}) = ${expected}`, (t) => {
    t.is(projectTimeToLimit(current, perSec, limit), expected);
  });
}
