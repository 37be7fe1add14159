// The decide step on its own: (policy state, serving workers, now) → (state', verdicts, notices,
// probes, judgements), as tables over recorded series and small hand-made windows. Pure: every
// state handed in is frozen, so a decision that wrote on its input would throw.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { OUTCOME, absorb, newWorkerPolicy } from '../../../src/core/policy/outcomes.js';
import { decide, newPolicyState, STEP_EVERY_MS, TREND_EVERY_MS, WINDOW_EVERY_MS } from '../../../src/core/policy/decide.js';
import { detectLeak } from '../../../src/core/leak/leak-detector.js';
import { SUSPECT_LEAD_MS } from '../../../src/core/leak/heap-confirm.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { EVENTS, REASONS, ADVICE } from '../../../src/constants.js';
import { parseDuration, parseRate, parseSize } from '../../../src/units.js';

const MiB = 1024 * 1024;
const LIMITS = { rss: null, heapUsed: 200 * MiB, native: null, totalRss: null, maxAge: null, maxRequests: null, jitter: 0, sustain: 0 };
const CONFIG = {
  pollInterval: 1000, limits: LIMITS, leak: false, unresponsive: { timeout: 15_000 },
  recycle: { maxConcurrent: 1, readyTimeout: 30_000, killTimeout: 10_000 },
};

const NULLS = Object.fromEntries(['pid', 'pss', 'anon', 'treePss', 'children', 'fds', 'heapLimit', 'arrayBuffers',
  'newSpace', 'gcCount', 'gcMs', 'majorGcCount', 'elu', 'delayP50', 'delayP99', 'requests', 'handles'].map((k) => [k, null]));
const recorded = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/series/real-${name}.json`, import.meta.url), 'utf8'))
  .map((s) => ({ ...NULLS, agent: true, ...s }));

function deepFreeze(o) {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

// pointOf(sample, ms since the first): a point after a full GC taken on that poll, absorbed as the
// act step reports it, or null.
function replay(name, leak, pointOf = () => null) {
  const series = recorded(name);
  const config = { ...CONFIG, workers: 1, limits: { ...LIMITS, heapUsed: null, rss: parseSize('2gb') }, leak };
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  const view = { id: 1, slot: 0, pid: 7, startedAt: series[0].t, readyAt: series[0].t, lastReplyAt: 0, jitterDraw: 0, window };
  let state = deepFreeze(newPolicyState(1));
  const out = [];
  for (const s of series) {
    window.push(s);
    view.lastReplyAt = s.t;
    const point = pointOf(s, s.t - series[0].t);
    if (point) state = deepFreeze(absorb(state, [{ type: OUTCOME.POINT, id: 1, point }]));
    const r = decide(state, [view], s.t, { config, totalLimit: null, cgroupLimit: null });
    state = deepFreeze(r.state); // a decision that wrote on its input state would throw here
    out.push({ t: s.t - series[0].t, ...r });
  }
  return out;
}

test('decide on a recorded heap leak, action warn: one leak.warning per leak window, never a verdict', (t) => {
  const leak = { window: parseDuration('60s'), minGrowth: parseRate('1mb/min'), action: 'warn' };
  const out = replay('heap-leak-fast', leak);
  const warnings = out.flatMap((r) => r.notices.filter((n) => n.fields.event === EVENTS.LEAK_WARNING).map((n) => ({ t: r.t, ...n })));
  t.true(warnings.length >= 2, `warned ${warnings.length} times`);
  for (let i = 1; i < warnings.length; i++) t.true(warnings[i].t - warnings[i - 1].t >= leak.window, 'not more than once per window');
  t.like(warnings[0].fields, { kind: 'heap', slot: 0, pid: 7 });
  t.true(warnings[0].fields.growthBytesPerSec > 0);
  t.true(out.every((r) => r.verdicts.length === 0), 'warn never recycles');
});

test('decide on a recorded heap leak, action recycle: a leak verdict with kind, rate and fit; steady never', (t) => {
  const leak = { window: parseDuration('60s'), minGrowth: parseRate('1mb/min'), action: 'recycle' };
  const first = replay('heap-leak-fast', leak).find((r) => r.verdicts.length);
  t.truthy(first, 'the leak is named');
  t.like(first.verdicts[0], { slot: 0, pid: 7, reason: REASONS.LEAK, kind: 'heap' });
  t.true(first.verdicts[0].trend.r2 > 0);
  t.true(replay('steady', leak).every((r) => r.verdicts.length === 0 && !r.notices.some((n) => n.fields.event === EVENTS.LEAK_WARNING)));
});

test('decide: the window rule, fitted every WINDOW_EVERY_MS, names a recorded leak no later than that after a fit on every tick would', (t) => {
  const leak = { window: parseDuration('60s'), minGrowth: parseRate('1mb/min'), action: 'recycle' };
  const series = recorded('heap-leak-fast');
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  let everyTick = null;
  for (const s of series) {
    window.push(s);
    if (detectLeak(window, { leak, limits: LIMITS, now: s.t, pollInterval: 1000, startedAt: series[0].t })) { everyTick = s.t - series[0].t; break; }
  }
  t.not(everyTick, null, 'the series holds a window verdict');
  const first = replay('heap-leak-fast', leak).find((r) => r.verdicts.length);
  t.true(first.t >= everyTick && first.t <= everyTick + WINDOW_EVERY_MS, `per tick at ${everyTick} ms, gated at ${first.t} ms`);
});

test('decide: a window heap verdict stands where points after full GCs rise with it, and goes where they are flat', (t) => {
  const leak = { window: parseDuration('60s'), minGrowth: parseRate('1mb/min'), action: 'recycle' };
  const base = recorded('heap-leak-fast')[0].heapUsed;
  const every20s = (heapAfter) => (s, ms) => (ms % 20_000 < 1000 ? { at: s.t, heapAfter: heapAfter(s), forced: true, pauseMs: 5, sites: null } : null);
  const named = (out) => out.find((r) => r.verdicts.length)?.verdicts[0];
  t.like(named(replay('heap-leak-fast', leak)), { reason: REASONS.LEAK, kind: 'heap' }, 'named with no points');
  t.like(named(replay('heap-leak-fast', leak, every20s((s) => s.heapFloor ?? s.heapUsed))), { reason: REASONS.LEAK, kind: 'heap' }, 'named with points that rise');
  // The live heap flat under a rising floor: old garbage piling up between major GCs (an LRU at its cap).
  const flat = replay('heap-leak-fast', leak, every20s(() => base));
  t.is(named(flat), undefined, 'refuted by flat points');
  t.false(flat.some((r) => r.notices.some((n) => n.fields.event === EVENTS.LEAK_WARNING)));
});

test('decide: the same input gives the same output (no hidden state)', (t) => {
  const leak = { window: parseDuration('60s'), minGrowth: parseRate('1mb/min'), action: 'recycle' };
  const a = replay('heap-leak-fast', leak).map((r) => r.verdicts.map((v) => v.value));
  const b = replay('heap-leak-fast', leak).map((r) => r.verdicts.map((v) => v.value));
  t.deepEqual(a, b);
});

test('decide: the minute\'s trend is fitted once every TREND_EVERY_MS, the judgement keeping the last one between', (t) => {
  const w = risingWorker({ to: 100_000 });
  const ctx = { config: { ...CONFIG, workers: 1 }, totalLimit: null, cgroupLimit: null };
  let state = deepFreeze(newPolicyState(1));
  const seen = [];
  for (let now = 80_000; now <= 80_000 + 2 * TREND_EVERY_MS; now += 1000) {
    const out = decide(state, [w], now, ctx);
    state = deepFreeze(out.state);
    seen.push([out.judgements[0].judged.trendAt, out.judgements[0].judged.trend.rssPerSec]);
  }
  t.deepEqual([...new Set(seen.map(([at]) => at))], [80_000, 80_000 + TREND_EVERY_MS, 80_000 + 2 * TREND_EVERY_MS]);
  t.true(seen.every(([, perSec]) => Math.abs(perSec - MiB) < 1024), 'the rising worker\'s 1 MiB/s, kept between fits');
});

test('decide with only: a worker outside the group keeps its memory and gets no verdict until its own tick', (t) => {
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  window.push({ t: 1_000_000, heapUsed: 250 * MiB, heapFloor: 250 * MiB, rss: 300 * MiB, treeRss: 300 * MiB });
  const view = (id, slot) => ({ id, slot, pid: 100 + id, startedAt: 0, readyAt: 0, lastReplyAt: 1_000_000, jitterDraw: 0, window });
  const ctx = { config: { ...CONFIG, workers: 2 }, totalLimit: null, cgroupLimit: null };
  const state = newPolicyState(2);
  state.workers[11] = { firstOverAt: 999_000, firstOverValue: 240 * MiB, baselineWarned: true, leakWarnedAt: null, confirm: { suspectedAt: null }, lastGcAt: null, missedAt: null, points: [] };
  const out = decide(state, [view(10, 0), view(11, 1)], 1_000_000, { ...ctx, only: new Set([10]) });
  t.deepEqual(out.verdicts.map((v) => v.id), [10]);
  t.deepEqual(out.state.workers[11], state.workers[11], 'remembered as it was');
  const next = decide(out.state, [view(10, 0), view(11, 1)], 1_001_000, { ...ctx, only: new Set([11]) });
  t.deepEqual(next.verdicts.map((v) => v.id), [11]);
});

test('decide: a worker filling its rss limit within a minute has its profiler started once; its recycle profiles the replacement from birth', (t) => {
  const config = { ...CONFIG, workers: 1, limits: { ...LIMITS, heapUsed: null, rss: 128 * MiB } };
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  const view = { id: 3, slot: 0, pid: 30, startedAt: 0, readyAt: 0, lastReplyAt: 0, jitterDraw: 0, window };
  let state = deepFreeze(newPolicyState(1));
  const starts = [];
  let verdict = null;
  for (let t = 1000; t <= 60_000 && !verdict; t += 1000) {
    window.push({ t, rss: (45 + 2 * t / 1000) * MiB, treeRss: (45 + 2 * t / 1000) * MiB, heapUsed: 10 * MiB });
    view.lastReplyAt = t;
    const r = decide(state, [view], t, { config, totalLimit: null, cgroupLimit: null });
    state = deepFreeze(r.state);
    starts.push(...r.probes.filter((p) => p.start));
    verdict = r.verdicts[0] ?? null;
  }
  t.is(starts.length, 1, 'started once, not every tick');
  t.like(starts[0], { slot: 0, id: 3, start: true });
  t.like(verdict, { reason: REASONS.RSS, profileNext: true });
});

test('decide: workers of a slot that filled at the same rate are named as the slot\'s leak at 2, 4, 8 in a row; three with a site stop the profiling from birth', (t) => {
  const config = { ...CONFIG, workers: 1 };
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  window.push({ t: 1000, rss: 50 * MiB, treeRss: 50 * MiB, heapUsed: 250 * MiB });
  const view = { id: 9, slot: 0, pid: 90, startedAt: -200_000, readyAt: -119_000, lastReplyAt: 1000, jitterDraw: 0, window };
  const site = [{ fn: 'cachePage', file: 'lib/pages.js', line: 9, share: 1 }];
  let state = newPolicyState(1);
  const warnings = [];
  for (let n = 1; n <= 4; n++) {
    state = absorb(state, [{ type: OUTCOME.RECYCLED, slot: 0, id: n, at: n * 40_000, reason: 'rss', kind: 'heap', bytesPerMin: (118 + n) * MiB, sites: site }]);
    const r = decide(state, [view], 1000, { config, totalLimit: null, cgroupLimit: null });
    state = r.state;
    warnings.push(...r.notices.filter((x) => x.fields.event === EVENTS.LEAK_WARNING).map((x) => x.fields));
    if (n === 4) t.false(r.verdicts[0].profileNext, 'the slot\'s leak is known: no profiler from birth');
    if (n === 2) t.true(r.verdicts[0].profileNext);
  }
  t.deepEqual(warnings.map((w) => w.workersInRow), [2, 4]);
  t.like(warnings[1], { slot: 0, pid: 90, kind: 'heap', sites: site });
});

// A worker whose rss rises 1 MiB a second and whose loop is slow: its judgement is data the report
// side keeps; status, inspect and the metrics read it instead of judging again.
function risingWorker({ id = 1, slot = 0, from = 0, to = 90_000 } = {}) {
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  for (let t = from; t <= to; t += 1000) {
    const rss = 100 * MiB + (t / 1000) * MiB;
    window.push({ t, rss, treeRss: rss, heapUsed: 20 * MiB, heapFloor: 20 * MiB, gcMs: t / 50, delayP99: 400 });
  }
  return { id, slot, pid: 100 + id, startedAt: from, readyAt: from, lastReplyAt: to, jitterDraw: 0, window };
}

test('decide: one judgement per serving worker and tick: the trend, the GC share of the last minute, and every advice that holds', (t) => {
  const w = risingWorker();
  const out = decide(deepFreeze(newPolicyState(1)), [w], 90_000, { config: { ...CONFIG, workers: 1, limits: { ...LIMITS, heapUsed: null } }, totalLimit: null, cgroupLimit: null });
  t.is(out.judgements.length, 1);
  const [j] = out.judgements;
  t.like(j, { id: 1, slot: 0, pid: 101, leak: null, points: 0, profiler: null });
  t.is(j.judged.at, 90_000);
  t.true(Math.abs(j.judged.trend.rssPerSec - MiB) < 0.01 * MiB, `${j.judged.trend.rssPerSec} bytes/s`);
  t.true(Math.abs(j.judged.gcShareLastMinute - 0.02) < 0.001, `${j.judged.gcShareLastMinute}`);
  t.deepEqual(j.judged.advice.map((a) => a.code), [ADVICE.LOOP_DELAY]);
  t.is(out.state.workers[1].judged, j.judged, 'the state keeps the same judgement');
});

test('decide: advice holds in every judgement while it holds, and is said once per run', (t) => {
  const w = risingWorker();
  const ctx = { config: { ...CONFIG, workers: 1, limits: { ...LIMITS, heapUsed: null } }, totalLimit: null, cgroupLimit: null };
  let state = deepFreeze(newPolicyState(1));
  const said = [];
  for (const now of [88_000, 89_000, 90_000]) {
    const out = decide(state, [w], now, ctx);
    state = deepFreeze(out.state);
    said.push(...out.notices.filter((n) => n.fields.event === EVENTS.ADVICE).map((n) => n.fields.code));
    t.deepEqual(out.judgements[0].judged.advice.map((a) => a.code), [ADVICE.LOOP_DELAY], `at ${now}`);
  }
  t.deepEqual(said, [ADVICE.LOOP_DELAY]);
});

test('decide: a step is looked for once every STEP_EVERY_MS, the judgement keeping the last one between', (t) => {
  const w = risingWorker();
  const ctx = { config: { ...CONFIG, workers: 1 }, totalLimit: null, cgroupLimit: null };
  let state = deepFreeze(newPolicyState(1));
  const stepAts = [];
  for (let now = 80_000; now <= 80_000 + 2 * STEP_EVERY_MS; now += 1000) {
    const out = decide(state, [w], now, ctx);
    state = deepFreeze(out.state);
    stepAts.push(out.judgements[0].judged.stepAt);
  }
  t.deepEqual([...new Set(stepAts)], [80_000, 80_000 + STEP_EVERY_MS, 80_000 + 2 * STEP_EVERY_MS]);
});

test('decide with only: a worker outside the group keeps the judgement of its own last tick, and only the group is reported', (t) => {
  const a = risingWorker({ id: 1, slot: 0 });
  const b = risingWorker({ id: 2, slot: 1 });
  const ctx = { config: { ...CONFIG, workers: 2 }, totalLimit: null, cgroupLimit: null };
  const first = decide(deepFreeze(newPolicyState(2)), [a, b], 89_000, ctx);
  const next = decide(deepFreeze(first.state), [a, b], 90_000, { ...ctx, only: new Set([1]) });
  t.deepEqual(next.judgements.map((j) => [j.id, j.judged.at]), [[1, 90_000]]);
  t.is(next.state.workers[2].judged.at, 89_000);
});

test('decide: the leak a tick names is in the judgement the report side keeps', (t) => {
  const leak = { window: parseDuration('60s'), minGrowth: parseRate('1mb/min'), action: 'warn' };
  const out = replay('heap-leak-fast', leak);
  const named = out.find((r) => r.notices.some((n) => n.fields.event === EVENTS.LEAK_WARNING));
  t.truthy(named);
  const warning = named.notices.find((n) => n.fields.event === EVENTS.LEAK_WARNING).fields;
  t.like(named.judgements[0].leak, { kind: 'heap', growthBytesPerSec: warning.growthBytesPerSec });
  t.true(out.slice(0, out.indexOf(named)).every((r) => r.judgements[0].leak === null), 'no leak before it was named');
});

test('decide: a leak said again by its window keeps the sites its confirmation named', (t) => {
  const leak = { window: parseDuration('60s'), minGrowth: parseRate('1mb/min'), action: 'warn' };
  const series = recorded('heap-leak-fast');
  const config = { ...CONFIG, workers: 1, limits: { ...LIMITS, heapUsed: null, rss: parseSize('2gb') }, leak };
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  const view = { id: 1, slot: 0, pid: 7, startedAt: series[0].t, readyAt: series[0].t, lastReplyAt: 0, jitterDraw: 0, window };
  let state = newPolicyState(1);
  const sites = [{ fn: 'cachePage', file: 'lib/pages.js', line: 9, share: 1 }];
  let windowed = null;
  for (const s of series) {
    window.push(s);
    view.lastReplyAt = s.t;
    // As if its confirmation points had named the heap leak, with its sites, before the window did.
    if (!state.workers[1]?.leak) state = { ...state, workers: { 1: { ...(state.workers[1] ?? newWorkerPolicy()), leak: { at: s.t, kind: 'heap', growthBytesPerSec: 1, sites } } } };
    const r = decide(deepFreeze(state), [view], s.t, { config, totalLimit: null, cgroupLimit: null });
    state = r.state;
    const w = r.notices.find((n) => n.fields.event === EVENTS.LEAK_WARNING);
    if (w) { windowed = r; break; }
  }
  t.truthy(windowed, 'the window named the leak');
  t.deepEqual(windowed.judgements[0].leak.sites, sites);
});

test('decide: memory that grows on a worker whose handles were named is those handles\' leak, not a second verdict of its own kind', (t) => {
  const leak = { window: parseDuration('60s'), minGrowth: parseRate('1mb/min'), action: 'recycle' };
  const series = recorded('heap-leak-fast');
  const config = { ...CONFIG, workers: 1, limits: { ...LIMITS, heapUsed: null, rss: parseSize('2gb') }, leak };
  const run = (named) => {
    const window = new SampleWindow({ maxAgeMs: 600_000 });
    const view = { id: 1, slot: 0, pid: 7, startedAt: series[0].t, readyAt: series[0].t, lastReplyAt: 0, jitterDraw: 0, window };
    let state = newPolicyState(1);
    // As if the worker's sockets had been named climbing before its heap rose (an http.Agent per request).
    if (named) state = { ...state, workers: { 1: { ...newWorkerPolicy(), leak: named } } };
    for (const s of series) {
      window.push(s);
      view.lastReplyAt = s.t;
      const r = decide(deepFreeze(state), [view], s.t, { config, totalLimit: null, cgroupLimit: null });
      state = r.state;
      if (r.verdicts.length) return r.verdicts[0];
    }
    return null;
  };
  const types = [{ type: 'fd', perSec: 11, count: 248 }];
  const held = run({ at: series[0].t, kind: 'handles', growthPerSec: 11, types, r2: 0.99, confidence: 0.99 });
  t.like(held, { reason: REASONS.LEAK, kind: 'handles', types });
  t.like(run(null), { reason: REASONS.LEAK, kind: 'heap' }, 'the same series with no handles named is a heap leak');
});

test('decide: no confirmation GC on a worker whose heap rises from ready until its warm-up hold is near its end; a slot that leaked before probes at once', (t) => {
  const leak = { window: parseDuration('5m'), minGrowth: parseRate('1mb/min'), action: 'warn', warmUp: parseDuration('150s') };
  const series = recorded('heap-leak-fast');
  const firstProbe = (leaked) => {
    const config = { ...CONFIG, workers: 1, limits: { ...LIMITS, heapUsed: null, rss: parseSize('2gb') }, leak };
    const window = new SampleWindow({ maxAgeMs: 600_000 });
    const view = { id: 2, slot: 0, pid: 7, startedAt: series[0].t, readyAt: series[0].t, lastReplyAt: 0, jitterDraw: 0, window };
    let state = newPolicyState(1);
    // A slot whose earlier worker leaked runs the same code: its replacement is not held.
    if (leaked) state = { ...state, slots: [{ ...state.slots[0], leaked: { id: 1, kind: 'heap' } }] };
    for (const s of series) {
      window.push(s);
      view.lastReplyAt = s.t;
      const r = decide(deepFreeze(state), [view], s.t, { config, totalLimit: null, cgroupLimit: null });
      state = r.state;
      if (r.probes.some((p) => p.point)) return s.t - series[0].t;
    }
    return null;
  };
  const held = firstProbe(false);
  t.true(held !== null && held >= leak.warmUp - SUSPECT_LEAD_MS, `first point at ${held} ms`);
  t.true(held <= leak.warmUp, `in time for a verdict at the hold's end: ${held} ms`);
  const known = firstProbe(true);
  t.true(known !== null && known < leak.warmUp - SUSPECT_LEAD_MS, `a known leaker's replacement: first point at ${known} ms`);
});

// What leak detection costs a healthy worker is said at debug: each suspicion as it starts, and as
// it ends with the points it took. A recorded express app under bursts of load, each point asked
// for answered the next poll with a flat heap.
test('decide: a suspicion on a healthy worker is said at debug as it starts and as it clears, with its points', (t) => {
  const series = recorded('express-bursts');
  const leak = { window: parseDuration('5m'), minGrowth: parseRate('1mb/min'), action: 'recycle', warmUp: parseDuration('80s') };
  const config = { ...CONFIG, workers: 1, limits: { ...LIMITS, heapUsed: null, rss: parseSize('2gb') }, leak };
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  const view = { id: 1, slot: 0, pid: 7, startedAt: series[0].t, readyAt: series[0].t, lastReplyAt: 0, jitterDraw: 0, window };
  let state = deepFreeze(newPolicyState(1));
  let asked = false;
  const said = [];
  let pointsAsked = 0;
  for (const s of series) {
    window.push(s);
    view.lastReplyAt = s.t;
    if (asked) state = deepFreeze(absorb(state, [{ type: OUTCOME.POINT, id: 1, point: { at: s.t, heapAfter: 11 * 2 ** 20, forced: true, pauseMs: 8 } }]));
    const r = decide(state, [view], s.t, { config, totalLimit: null, cgroupLimit: null });
    state = deepFreeze(r.state);
    asked = r.probes.some((p) => p.point);
    if (asked) pointsAsked++;
    for (const n of r.notices) if (n.fields.event === EVENTS.LEAK_SUSPECTED || n.fields.event === EVENTS.LEAK_CLEARED) said.push(n);
    t.true(r.verdicts.every((v) => v.reason !== REASONS.LEAK), 'a flat heap is no leak');
  }
  t.true(said.length >= 2, `${said.length} notices`);
  t.true(said.every((n) => n.level === 'debug' && n.fields.slot === 0 && n.fields.pid === 7));
  // Started and cleared in turn, each cleared one with the points it took and how long it ran.
  said.forEach((n, i) => t.is(n.fields.event, i % 2 ? EVENTS.LEAK_CLEARED : EVENTS.LEAK_SUSPECTED));
  const cleared = said.filter((n) => n.fields.event === EVENTS.LEAK_CLEARED);
  t.true(cleared.every((n) => n.fields.points >= 1 && n.fields.forcedGcs === n.fields.points && n.fields.durationMs > 0 && n.fields.confirmed === false));
  t.true(pointsAsked >= cleared.reduce((a, n) => a + n.fields.points, 0), 'no more points said than asked for');
});
