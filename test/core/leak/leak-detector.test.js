import test from 'ava';
import { readFileSync } from 'node:fs';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { detectLeak, detectStep, LEAK_THRESHOLDS } from '../../../src/core/leak/leak-detector.js';
import { parseDuration, parseRate, parseSize } from '../../../src/units.js';
import { FIXTURES, makeSeries } from '../../fixtures/series/generate.js';

const MiB = 1024 * 1024;
const NULLS = Object.fromEntries(['pid', 'pss', 'anon', 'treePss', 'children', 'fds', 'heapLimit', 'arrayBuffers',
  'newSpace', 'gcCount', 'gcMs', 'majorGcCount', 'elu', 'delayP50', 'delayP99', 'requests', 'handles'].map((k) => [k, null]));
const load = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/series/${name}.json`, import.meta.url), 'utf8'))
  .map((s) => ({ ...NULLS, agent: true, ...s }));

const leakOf = (window, minGrowth) => ({ window: parseDuration(window), minGrowth: parseRate(minGrowth), action: 'recycle' });
const SLOW = leakOf('5m', '0.5mb/min');
const FAST = leakOf('30s', '1mb/s');
const LIMITS = { rss: parseSize('1gb'), heapUsed: parseSize('600mb'), native: parseSize('250mb'), totalRss: null,
  maxAge: null, maxRequests: null, jitter: 0, sustain: 0 };

// Push samples one poll at a time, as the poller does, and collect what fn returns at each poll.
function replay(series, fn) {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  return series.map((s) => { w.push(s); return fn(w, s.t - series[0].t); });
}
const verdicts = (series, leak, limits = LIMITS) => replay(series, (w, el) => ({ el, v: detectLeak(w, { leak, limits, now: w.last().t, pollInterval: 1000 }) }));

test('fixtures on disk are what generate.js makes', (t) => {
  for (const [name, spec] of Object.entries(FIXTURES)) {
    t.deepEqual(JSON.parse(readFileSync(new URL(`../../fixtures/series/${name}.json`, import.meta.url), 'utf8')), makeSeries(spec), name);
  }
});

for (const name of ['steady', 'sawtooth', 'burst-spike', 'step-change']) {
  for (const [label, leak] of [['5m window', SLOW], ['30s window', FAST]]) {
    test(`no leak at any poll: ${name}, ${label}`, (t) => {
      const fired = verdicts(load(name), leak).filter(({ v }) => v);
      t.deepEqual(fired.map(({ el }) => el), []);
    });
  }
}

// The slow leaks run from t=0, the fast ones start at t=15 s after a flat warm-up.
for (const [name, leak, kind, field, startMs] of [
  ['slow-heap-leak', SLOW, 'heap', 'heapUsed', 0],
  ['buffer-leak', SLOW, 'external', 'external', 0],
  ['children-leak', SLOW, 'children', 'childrenRss', 0],
  ['native-leak', SLOW, 'native', 'native', 0],
  ['fast-heap-leak', FAST, 'heap', 'heapUsed', 15_000],
  ['fast-buffer-leak', FAST, 'external', 'external', 15_000],
  ['fast-children-leak', FAST, 'children', 'childrenRss', 15_000],
]) {
  test(`leak caught: ${name} → ${kind}`, (t) => {
    const all = verdicts(load(name), leak);
    const early = all.filter(({ el, v }) => v && el < LEAK_THRESHOLDS.coverage * leak.window);
    t.deepEqual(early.map(({ el }) => el), [], 'nothing before the window is covered');
    const { v } = all.at(-1);
    t.truthy(v);
    t.like(v, { kind, field, windowMs: leak.window });
    t.true(v.growthBytesPerSec >= leak.minGrowth);
    t.true(v.r2 >= LEAK_THRESHOLDS.r2);
    t.true(v.confidence > 0.5 && v.confidence <= 1);
    // a window that holds nothing but the leak fires at every poll: a leak does not flicker
    const covered = all.filter(({ el }) => el >= startMs + leak.window);
    t.true(covered.length > 0);
    t.true(covered.every(({ v: x }) => x && x.kind === kind), 'fires at every poll after one full window of leak');
  });
}

test('growth rate is the leak rate', (t) => {
  const { v } = verdicts(load('buffer-leak'), SLOW).at(-1);
  t.true(Math.abs(v.growthBytesPerSec - (2 * MiB) / 60) < 0.1 * (2 * MiB) / 60, String(v.growthBytesPerSec * 60 / MiB));
  const fast = verdicts(load('fast-heap-leak'), FAST).at(-1).v;
  t.true(Math.abs(fast.growthBytesPerSec - 20 * MiB) < 1 * MiB, String(fast.growthBytesPerSec / MiB));
});

// Leak rates on both sides of minGrowth, and windows the history can and cannot cover (it is 6 min).
for (const [name, window, minGrowth, fires] of [
  ['slow-heap-leak', '5m', '0.5mb/min', true],
  ['slow-heap-leak', '5m', '2mb/min', false],
  ['slow-heap-leak', '4m', '0.5mb/min', true],
  ['buffer-leak', '5m', '1mb/min', true],
  ['buffer-leak', '5m', '3mb/min', false],
  ['buffer-leak', '2m', '1mb/min', true],
  ['buffer-leak', '10m', '1mb/min', false],
  ['children-leak', '5m', '2mb/min', true],
  ['children-leak', '5m', '4mb/min', false],
  ['fast-heap-leak', '30s', '10mb/s', true],
  ['fast-heap-leak', '30s', '30mb/s', false],
  ['fast-heap-leak', '5m', '1mb/s', false],
  ['steady', '1m', '0.1mb/min', false],
  ['sawtooth', '2m', '0.1mb/min', false],
]) {
  test(`table: ${name}, window ${window}, minGrowth ${minGrowth} → ${fires ? 'leak' : 'no leak'}`, (t) => {
    t.is(Boolean(verdicts(load(name), leakOf(window, minGrowth)).at(-1).v), fires);
  });
}

// Other seeds and noise levels of the same shapes: the thresholds are not tuned to one random draw.
for (const seed of [101, 202, 303, 404, 505]) {
  test(`seed ${seed}: leaks caught, non-leaks never fire`, (t) => {
    for (const name of ['steady', 'sawtooth', 'burst-spike', 'step-change']) {
      t.false(verdicts(makeSeries({ ...FIXTURES[name], seed }), SLOW).some(({ v }) => v), name);
    }
    for (const [name, kind] of [['slow-heap-leak', 'heap'], ['buffer-leak', 'external'], ['children-leak', 'children']]) {
      t.is(verdicts(makeSeries({ ...FIXTURES[name], seed }), SLOW).at(-1).v?.kind, kind, name);
    }
  });
}

test('leak: false, or no window, is never a leak', (t) => {
  const series = load('fast-heap-leak');
  t.false(verdicts(series, false).some(({ v }) => v));
  t.is(detectLeak(null, { leak: FAST, limits: LIMITS, now: 0 }), null);
  t.is(detectLeak(new SampleWindow({ maxAgeMs: 1000 }), { leak: FAST, limits: LIMITS, now: 0 }), null);
});

test('short history → null', (t) => {
  const series = load('buffer-leak').slice(0, 200); // 199 s of a 5 min window
  t.false(verdicts(series, SLOW).some(({ v }) => v));
});

test('null-filled samples: a silent agent now and then does not hide a leak', (t) => {
  const agentless = ['heapUsed', 'heapTotal', 'external', 'native'];
  const series = load('slow-heap-leak').map((s, i) => (i % 4 === 1 ? { ...s, ...Object.fromEntries(agentless.map((k) => [k, null])), agent: false } : s));
  t.like(verdicts(series, SLOW).at(-1).v, { kind: 'heap' });
});

test('null-filled samples: no agent at all still sees the tree grow, as rss', (t) => {
  const series = load('native-leak').map((s) => ({ ...s, heapUsed: null, heapTotal: null, external: null, native: null, agent: false }));
  t.like(verdicts(series, SLOW).at(-1).v, { kind: 'rss', field: 'treeRss' });
});

test('null-filled samples: without a tree probe it falls back to rss', (t) => {
  const series = load('fast-heap-leak').map((s) => ({ ...s, treeRss: null, childrenRss: null }));
  t.like(verdicts(series, FAST).at(-1).v, { kind: 'heap' });
  const blind = load('fast-heap-leak').map((s) => ({ ...s, treeRss: null, rss: null }));
  t.false(verdicts(blind, FAST).some(({ v }) => v), 'no RSS at all: nothing confirms the leak');
});

test('heap growing into pages the process already holds is not a leak (RSS flat)', (t) => {
  // The heap baseline rises 1 MiB/min but heapTotal and RSS were sized by an earlier burst and do not move.
  const series = load('slow-heap-leak').map((s) => ({ ...s, heapTotal: 200 * MiB, rss: 260 * MiB, treeRss: 260 * MiB }));
  t.false(verdicts(series, SLOW).some(({ v }) => v));
});

test('heapTotal rising over a flat heapUsed is V8 keeping pages, not a leak', (t) => {
  // RSS climbs 2 MiB/min, all of it in heapTotal; the live heap's baseline stays flat.
  const series = load('steady').map((s, i) => {
    const held = Math.round((i * 2 * MiB) / 60);
    return { ...s, heapTotal: s.heapTotal + held, rss: s.rss + held, treeRss: s.treeRss + held };
  });
  t.false(verdicts(series, SLOW).some(({ v }) => v));
  // the same climb outside V8 is a leak, named native
  const native = load('steady').map((s, i) => {
    const held = Math.round((i * 2 * MiB) / 60);
    return { ...s, native: s.native + held, rss: s.rss + held, treeRss: s.treeRss + held };
  });
  t.like(verdicts(native, SLOW).at(-1).v, { kind: 'native' });
});

// Caches, JIT and pools fill up after a start: the heap climbs 30 MiB with a 90 s time constant,
// still faster than minGrowth when the first window fills. Only the worker's age tells it from a leak.
const warmUp = (seed) => makeSeries({ seed, seconds: 660, heap: (s) => 60 * MiB + 30 * MiB * (1 - Math.exp(-s / 90)) });

test('warm-up: looks like a leak without startedAt, is not judged with it', (t) => {
  for (const seed of [1, 2, 3]) {
    const series = warmUp(seed);
    const run = (startedAt) => replay(series, (w) => detectLeak(w, { leak: SLOW, limits: LIMITS, now: w.last().t, startedAt }));
    t.true(run(null).some(Boolean), `seed ${seed}: the curve alone fires`);
    t.false(run(series[0].t).some(Boolean), `seed ${seed}`);
  }
});

test('warm-up: a leak from the start is still caught after the warm-up window', (t) => {
  const series = makeSeries({ ...FIXTURES['buffer-leak'], seconds: 660 });
  const startedAt = series[0].t;
  const all = replay(series, (w, el) => ({ el, v: detectLeak(w, { leak: SLOW, limits: LIMITS, now: w.last().t, startedAt }) }));
  t.deepEqual(all.filter(({ v }) => v).map(({ el }) => el)[0], (LEAK_THRESHOLDS.warmup + LEAK_THRESHOLDS.coverage) * SLOW.window);
  t.like(all.at(-1).v, { kind: 'external' });
});

test('projectedLimitInSec: to the nearest limit that applies', (t) => {
  const roomy = { ...LIMITS, rss: parseSize('4gb'), heapUsed: parseSize('2gb') };
  const { v } = verdicts(load('fast-heap-leak'), FAST, roomy).at(-1);
  const last = load('fast-heap-leak').at(-1);
  const toHeap = (roomy.heapUsed - last.heapUsed) / v.growthBytesPerSec;
  t.true(v.projectedLimitInSec > 0 && v.projectedLimitInSec <= toHeap + 1e-6, `${v.projectedLimitInSec} vs ${toHeap}`);
  t.true(Math.abs(v.projectedLimitInSec - toHeap) < 5, 'the heap limit is nearer than the rss limit');
  const noLimits = { ...LIMITS, rss: null, heapUsed: null, native: null };
  t.is(verdicts(load('fast-heap-leak'), FAST, noLimits).at(-1).v.projectedLimitInSec, null);
  const over = { ...LIMITS, rss: 100 * MiB };
  t.is(verdicts(load('fast-heap-leak'), FAST, over).at(-1).v.projectedLimitInSec, 0);
});


const steps = (series, windowMs) => replay(series, (w, el) => ({ el, s: detectStep(w, { now: w.last().t, windowMs }) }));

test('detectStep: a cache load is a step, dated to the poll it happened', (t) => {
  const found = steps(load('step-change'), SLOW.window).filter(({ s }) => s);
  t.true(found.length > 100);
  for (const { s } of found) {
    t.is(s.field, 'heapUsed');
    t.true(Math.abs(s.stepBytes - 100 * MiB) < 5 * MiB, String(s.stepBytes / MiB));
    t.is(s.at, load('step-change')[150].t);
  }
  t.false(found.some(({ el }) => el < 150), 'not before it happened');
});

test('detectStep: RSS kept after a freed burst is a native step (incident 2)', (t) => {
  const { s } = steps(load('burst-spike'), SLOW.window).at(-1);
  t.like(s, { field: 'native', at: load('burst-spike')[120].t });
  t.true(Math.abs(s.stepBytes - 40 * MiB) < 2 * MiB);
});

for (const name of ['steady', 'sawtooth', 'slow-heap-leak', 'buffer-leak', 'children-leak', 'native-leak',
  'fast-heap-leak', 'fast-buffer-leak', 'fast-children-leak']) {
  test(`detectStep: none at any poll in ${name}`, (t) => {
    for (const windowMs of [SLOW.window, FAST.window]) {
      t.deepEqual(steps(load(name), windowMs).filter(({ s }) => s).map(({ el }) => el), [], `window ${windowMs}`);
    }
  });
}

test('detectStep: below minBytes, or no history, is no step', (t) => {
  t.is(steps(load('step-change'), SLOW.window).map(({ s }) => s).filter(Boolean).length > 0, true);
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  for (const s of load('step-change')) w.push(s);
  t.is(detectStep(w, { now: w.last().t, windowMs: SLOW.window, minBytes: 200 * MiB }), null);
  t.is(detectStep(new SampleWindow({ maxAgeMs: 1000 }), { now: 0, windowMs: SLOW.window }), null);
});

// A 4 s GC sawtooth (20 → 80 MiB) polled every 1.01 s: each bucket's lowest poll lands a little
// later in the cycle than the last one, so polled minima climb for a minute before they wrap, and
// RSS creeps with noise. The agent's post-GC floor stays at 20 MiB.
function aliasedSawtooth(withFloor) {
  let seed = 7;
  const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  return Array.from({ length: 240 }, (_, k) => {
    const rss = 150 * MiB + (k / 60) * MiB + (rnd() - 0.5) * 6 * MiB;
    const s = { ...NULLS, agent: true, t: Math.round(k * 1010), rss, treeRss: rss, childrenRss: 0,
      heapUsed: 20 * MiB + 60 * MiB * (((k * 1.01) % 4) / 4), heapTotal: 90 * MiB, external: 2 * MiB, native: rss - 92 * MiB };
    if (withFloor) s.heapFloor = 20 * MiB + rnd() * 0.5 * MiB;
    return s;
  });
}

test('polls aliasing against a GC cycle: a fake heap trend on polled heapUsed, none on the post-GC floor', (t) => {
  const leak = leakOf('60s', '2mb/min');
  const polled = verdicts(aliasedSawtooth(false), leak).filter(({ v }) => v);
  t.true(polled.length > 0, 'the series does alias (else this test proves nothing)');
  t.is(polled[0].v.field, 'heapUsed');
  t.deepEqual(verdicts(aliasedSawtooth(true), leak).filter(({ v }) => v).map(({ el }) => el), []);
});

test('a heap leak seen through the post-GC floor: caught, and the verdict names the floor', (t) => {
  const series = load('slow-heap-leak').map((s) => ({ ...s, heapFloor: s.heapUsed === null ? null : s.heapUsed - 2 * MiB }));
  t.like(verdicts(series, SLOW).at(-1).v, { kind: 'heap', field: 'heapFloor' });
});

test('native memory is named from twice leak.minGrowth: an allocator\'s creep under it is not a leak', (t) => {
  // heapTotal held flat: V8 gives nothing back that the creep could be its pages.
  const climbing = (perMin) => load('steady').map((s, i, all) => {
    const held = Math.round((i * perMin * MiB) / 60);
    return { ...s, heapTotal: all[0].heapTotal, native: s.native + held, rss: s.rss + held, treeRss: s.treeRss + held };
  });
  const rate = SLOW.minGrowth * 60 / MiB; // MiB/min
  t.deepEqual(verdicts(climbing(1.5 * rate), SLOW).filter(({ v }) => v).map(({ el, v }) => `${v.kind} at ${el}`), [], '1.5× minGrowth: a creep');
  t.like(verdicts(climbing(2.5 * rate), SLOW).at(-1).v, { kind: 'native' });
  // The same 1.5× in the heap is a leak: the heap after GC is exact, no allocator in it.
  const heap = load('steady').map((s, i) => {
    const held = Math.round((i * 1.5 * rate * MiB) / 60);
    return { ...s, heapUsed: s.heapUsed + held, heapTotal: s.heapTotal + held, rss: s.rss + held, treeRss: s.treeRss + held };
  });
  t.like(verdicts(heap, SLOW).at(-1).v, { kind: 'heap' });
});

test('native memory and unexplained RSS are not named while the worker is settling; exact parts are', (t) => {
  // The same native leak through a 2 min window, judged as a worker ~4 min old and as one past settleMs.
  const MINUTE = leakOf('2m', '1mb/min');
  const series = load('native-leak');
  const judge = (ageMs) => {
    const w = new SampleWindow({ maxAgeMs: 600_000 });
    for (const s of series) w.push(s);
    const now = w.last().t;
    return detectLeak(w, { leak: MINUTE, limits: LIMITS, now, pollInterval: 1000, startedAt: now - ageMs });
  };
  const young = LEAK_THRESHOLDS.warmup * MINUTE.window + MINUTE.window + 1000; // past the window warm-up
  t.true(young < LEAK_THRESHOLDS.settleMs);
  t.is(judge(young), null, 'native, still settling');
  t.like(judge(LEAK_THRESHOLDS.settleMs + 1000), { kind: 'native' });
  // Without an agent a buffer leak is only the tree's RSS growing: unexplained, so it settles too.
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  for (const s of load('buffer-leak')) w.push({ ...s, heapUsed: null, heapTotal: null, external: null, native: null, agent: false });
  const agentless = (ageMs) => detectLeak(w, { leak: MINUTE, limits: LIMITS, now: w.last().t, pollInterval: 1000, startedAt: w.last().t - ageMs });
  t.is(agentless(young), null, 'rss, still settling');
  t.like(agentless(LEAK_THRESHOLDS.settleMs + 1000), { kind: 'rss' });
  // A buffer leak is exact: named as soon as the window warm-up is over.
  const b = new SampleWindow({ maxAgeMs: 600_000 });
  for (const s of load('buffer-leak')) b.push(s);
  t.like(detectLeak(b, { leak: MINUTE, limits: LIMITS, now: b.last().t, pollInterval: 1000, startedAt: b.last().t - young }), { kind: 'external' });
});
