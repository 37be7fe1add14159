import test from 'ava';
import { evaluateWorker, memoryVerdict, evaluateFleet, resolveTotalLimit, baselineHold } from '../../../src/core/policy/policy.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';

const MB = 1024 * 1024;
const limits = (over = {}) => ({ rss: null, heapUsed: null, native: null, totalRss: null, maxAge: null, maxRequests: null, jitter: 0, sustain: 0, ...over });
const sample = (t, over = {}) => ({ t, rss: 100 * MB, treeRss: 100 * MB, heapUsed: 50 * MB, native: 20 * MB, requests: 0, ...over });
function windowOf(samples) {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  for (const s of samples) w.push(s);
  return w;
}
const worker = (samples, over = {}) => ({ window: windowOf(samples), readyAt: 0, lastReplyAt: samples.at(-1)?.t ?? 0, jitterDraw: 0, ...over });
const cfg = (l, unresponsive = { timeout: 15_000 }) => ({ limits: limits(l), unresponsive });

const cases = [
  ['under every limit', [sample(1000)], { rss: 200 * MB }, null],
  ['rss over (whole tree)', [sample(1000, { rss: 90 * MB, treeRss: 250 * MB })], { rss: 200 * MB }, { reason: 'rss', value: 250 * MB, limit: 200 * MB }],
  ['rss falls back to own rss when tree unknown', [sample(1000, { treeRss: null, rss: 300 * MB })], { rss: 200 * MB }, { reason: 'rss', value: 300 * MB, limit: 200 * MB }],
  ['heap over', [sample(1000, { heapUsed: 310 * MB })], { heapUsed: 300 * MB }, { reason: 'heap', value: 310 * MB, limit: 300 * MB }],
  ['native over', [sample(1000, { native: 260 * MB })], { native: 250 * MB }, { reason: 'native', value: 260 * MB, limit: 250 * MB }],
  ['unknown memory is never over', [sample(1000, { treeRss: null, rss: null, heapUsed: null })], { rss: 1, heapUsed: 1 }, null],
  ['exactly at the limit is not over', [sample(1000, { treeRss: 200 * MB })], { rss: 200 * MB }, null],
];
for (const [name, samples, l, expected] of cases) {
  test(`evaluateWorker: ${name}`, (t) => {
    t.deepEqual(evaluateWorker(worker(samples), cfg(l), samples.at(-1).t), expected);
  });
}

test('sustain: one spike over the limit is not a verdict, a sustained excess is', (t) => {
  const l = limits({ rss: 200 * MB, sustain: 3000 });
  const spike = windowOf([sample(0), sample(1000), sample(2000), sample(3000), sample(4000, { treeRss: 300 * MB })]);
  t.is(memoryVerdict(spike, l, 4000), null);
  const notYet = windowOf([0, 1000, 2000, 3000, 4000, 5000].map((t) => sample(t, { treeRss: t >= 3000 ? 300 * MB : 100 * MB })));
  t.is(memoryVerdict(notYet, l, 5000), null, 'over for 2000 ms of a 3000 ms sustain');
  const sustained = windowOf([0, 1000, 2000, 3000, 4000, 5000].map((t) => sample(t, { treeRss: t >= 2000 ? 300 * MB : 100 * MB })));
  t.like(memoryVerdict(sustained, l, 5000), { reason: 'rss' }, 'every sample since now - sustain is over');
  const young = windowOf([sample(5000, { treeRss: 300 * MB })]);
  t.is(memoryVerdict(young, l, 5000), null, 'history too short to prove it sustained');
});

test('unresponsive: agent silent longer than the timeout', (t) => {
  const w = worker([sample(1000)], { lastReplyAt: 1000 });
  t.is(evaluateWorker(w, cfg({}), 15_000), null);
  t.deepEqual(evaluateWorker(w, cfg({}), 17_000), { reason: 'unresponsive', value: 16_000, limit: 15_000 });
  t.is(evaluateWorker(w, cfg({}, false), 100_000), null, 'unresponsive: false switches it off');
});

test('max-age with jitter: the draw shortens the limit by up to jitter', (t) => {
  const l = { maxAge: 100_000, jitter: 0.1 };
  const s = [sample(95_000)];
  t.is(evaluateWorker(worker(s, { jitterDraw: 0 }), cfg(l), 95_000), null);
  t.deepEqual(evaluateWorker(worker(s, { jitterDraw: 1 }), cfg(l), 95_000), { reason: 'max-age', value: 95_000, limit: 90_000 });
});

test('max-requests with jitter', (t) => {
  const l = { maxRequests: 1000, jitter: 0.2 };
  t.is(evaluateWorker(worker([sample(1, { requests: 900 })], { jitterDraw: 0 }), cfg(l), 1), null);
  t.deepEqual(evaluateWorker(worker([sample(1, { requests: 900 })], { jitterDraw: 0.5 }), cfg(l), 1), { reason: 'max-requests', value: 900, limit: 900 });
  t.is(evaluateWorker(worker([sample(1, { requests: null })]), cfg({ maxRequests: 1 }), 1), null, 'unknown request count never triggers');
});

test('memory beats the scheduled limits', (t) => {
  const w = worker([sample(200_000, { treeRss: 900 * MB })]);
  t.like(evaluateWorker(w, cfg({ rss: 500 * MB, maxAge: 1000 }), 200_000), { reason: 'rss' });
});

test('fleet: over totalRss recycles the largest worker, summing PSS', (t) => {
  const ws = [
    { slot: 0, sample: { treePss: 100 * MB, treeRss: 150 * MB } },
    { slot: 1, sample: { treePss: 300 * MB, treeRss: 350 * MB } },
    { slot: 2, sample: null },
  ];
  t.is(evaluateFleet(ws, 450 * MB), null);
  t.deepEqual(evaluateFleet(ws, 350 * MB), { slot: 1, reason: 'total-rss', value: 400 * MB, limit: 350 * MB });
  t.is(evaluateFleet(ws, null), null);
});

test('resolveTotalLimit: bytes, fraction of the cgroup limit, unknown cgroup', (t) => {
  t.is(resolveTotalLimit({ bytes: 5 }, null), 5);
  t.is(resolveTotalLimit({ fraction: 0.9 }, 1000), 900);
  t.is(resolveTotalLimit({ fraction: 0.9 }, null), null);
  t.is(resolveTotalLimit(null, 1000), null);
});

test('baselineHold: over at the first samples holds, with a grace that doubles per streak', (t) => {
  const o = { pollInterval: 1000, baseGraceMs: 30_000, maxGraceMs: 600_000 };
  t.deepEqual(baselineHold({ readyAt: 0, firstOverAt: 2000 }, { streak: 0 }, 2000, o), { young: true, graceMs: 30_000, hold: true });
  t.deepEqual(baselineHold({ readyAt: 0, firstOverAt: 2000 }, { streak: 0 }, 31_000, o), { young: true, graceMs: 30_000, hold: false });
  t.deepEqual(baselineHold({ readyAt: 0, firstOverAt: 2000 }, { streak: 2 }, 31_000, o), { young: true, graceMs: 120_000, hold: true });
  t.deepEqual(baselineHold({ readyAt: 0, firstOverAt: 20_000 }, { streak: 0 }, 20_000, o), { young: false, graceMs: 30_000, hold: false }, 'grew to the limit: not a baseline problem');
  t.is(baselineHold({ readyAt: 0, firstOverAt: 2000 }, { streak: 20 }, 31_000, o).graceMs, 600_000);
  t.deepEqual(baselineHold({ readyAt: 0, firstOverAt: 1000, firstOverValue: 100, value: 150 }, { streak: 0 }, 3000, o), { young: false, graceMs: 30_000, hold: false }, 'still growing: a fast leak, not a big start');
  t.true(baselineHold({ readyAt: 0, firstOverAt: 1000, firstOverValue: 100, value: 110 }, { streak: 0 }, 3000, o).hold);
});

test('predictCrossing: a steady rise projected over limits.rss within the startup time and two polls; not a flat, falling or noisy one', async (t) => {
  const { predictCrossing } = await import('../../../src/core/policy/policy.js');
  const { SampleWindow } = await import('../../../src/core/forecast/sample-window.js');
  const MB = 1024 * 1024;
  const win = (values) => {
    const w = new SampleWindow({ maxAgeMs: 60_000 });
    values.forEach((v, i) => w.push({ t: 10_000 + i * 1000, treeRss: v * MB }));
    return w;
  };
  const o = { startupMs: 500, pollInterval: 1000, readyAt: 0 };
  const now = 13_000;
  const p = predictCrossing(win([60, 80, 100, 120]), 150 * MB, now, o);
  t.like(p, { reason: 'rss', predictive: true, value: 120 * MB, limit: 150 * MB });
  t.is(p.crossingInMs, 1500, '30 MB left at 20 MB/s');
  t.is(predictCrossing(win([60, 70, 80, 90]), 150 * MB, now, o), null, '6 s away: later than a startup and two polls');
  t.is(predictCrossing(win([120, 120, 120, 120]), 150 * MB, now, o), null, 'flat');
  t.is(predictCrossing(win([140, 120, 100, 80]), 150 * MB, now, o), null, 'falling');
  t.is(predictCrossing(win([60, 130, 70, 125]), 150 * MB, now, o), null, 'a sawtooth is not a steady rise');
  t.is(predictCrossing(win([60, 80, 100, 160]), 150 * MB, now, o), null, 'over already: the plain verdict');
  t.is(predictCrossing(win([60, 80, 100, 120]), 150 * MB, now, { ...o, startupMs: null }), null, 'no startup measured yet');
  t.is(predictCrossing(win([60, 80, 100, 120]), null, now, o), null, 'no rss limit');
  t.is(predictCrossing(win([60, 80, 100, 120]), 150 * MB, now, { ...o, readyAt: 12_000 }), null, 'the first half second after readiness is not judged');
  t.is(predictCrossing(win([120, 126, 132, 138]), 150 * MB, now, { ...o, startupMs: 10_000 }), null, 'started near its limit: a baseline matter, not a leak');
});
