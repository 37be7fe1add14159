// The poll tick in-process: a fake clock, the real worker records (what a pool keeps, without the
// forking) whose agents answer scripted stats, and a recorder standing in for the recycler. What
// goes in is samples and outcomes; what comes out is the recycles started and the events
// reported, and the policy state handed back for the next tick.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { runTick } from '../../../src/primary/tick/tick.js';
import { WorkerRecords } from '../../../src/primary/lifecycle/worker-records.js';
import { Inbox } from '../../../src/primary/tick/inbox.js';
import { OUTCOME, absorb } from '../../../src/core/policy/outcomes.js';
import { decide, newPolicyState } from '../../../src/core/policy/decide.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { STATES, EVENTS, REASONS } from '../../../src/constants.js';
import { parseDuration, parseRate, parseSize } from '../../../src/units.js';

const MiB = 1024 * 1024;
const LIMITS = { rss: null, heapUsed: 200 * MiB, native: null, totalRss: null, maxAge: null, maxRequests: null, jitter: 0, sustain: 0 };
const CONFIG = {
  pollInterval: 1000, limits: LIMITS, leak: false, unresponsive: { timeout: 15_000 },
  recycle: { maxConcurrent: 1, readyTimeout: 30_000, killTimeout: 10_000 },
};

// The worker's pid is this test process: the poller's /proc reads see a real process.
class ScriptedPool extends WorkerRecords {
  constructor(heap, clock) {
    super({ now: clock });
    this.heap = heap;
    this.asked = [];
  }

  async request(h) {
    this.asked.push(h.slot);
    this.noteReply(h, this.now());
    const heap = this.heap(h.slot, this.now());
    return { heapUsed: heap, heapTotal: 300 * MiB, external: MiB, heapFloor: heap };
  }
}

function fakeWorld({ workers = 2, heap = () => 50 * MiB, config = CONFIG, readyAgoMs = 119_000 } = {}) {
  let clock = 1_000_000;
  const now = () => clock;
  const pool = new ScriptedPool(heap, now);
  pool.resize(workers);
  const handles = Array.from({ length: workers }, (_, slot) => {
    const h = {
      id: pool.nextId(), slot, pid: process.pid, state: STATES.SPAWNING, startedAt: clock - 120_000, readyAt: null, lastReplyAt: clock,
      jitterDraw: 0, tree: [], window: new SampleWindow({ maxAgeMs: 600_000 }), probe: { polls: 0, pssBase: null },
      retiring: null, drainStartedAt: null, forced: false, notReady: false,
    };
    pool.add(h, { serve: true });
    pool.markReady(h, clock - readyAgoMs);
    return h;
  });
  const started = [];
  const recycler = { busy: new Set(), waiting: new Set(), recycle: async (slot, v) => { started.push(v); } };
  const inbox = new Inbox();
  const reported = [];
  let policy = newPolicyState(workers);
  return {
    handles, recycler, started, reported, pool, inbox,
    advance: (ms) => { clock += ms; },
    async tick(group) {
      const out = await runTick({
        pool, recycler, inbox, config: { workers, ...config }, now, policy, totalLimit: null, cgroupLimit: null, group,
        report: (level, fields, msg) => reported.push({ level, ...fields, msg }), isStopping: () => false,
      });
      policy = out.policy;
      return out;
    },
    get policy() { return policy; },
  };
}

test('a worker over its heap limit is recycled with the reason and the numbers; one at a time (maxConcurrent 1)', async (t) => {
  const w = fakeWorld({ heap: () => 250 * MiB });
  await w.tick();
  t.is(w.started.length, 1, 'both are over; only one recycle may start');
  t.like(w.started[0], { slot: 0, reason: REASONS.HEAP, value: 250 * MiB, limit: 200 * MiB });
  t.truthy(w.started[0].trend, 'the verdict carries the worker trend');
});

test('a slot already recycling is not started again; the next slot is', async (t) => {
  const w = fakeWorld({ heap: () => 250 * MiB });
  w.recycler.busy.add(0);
  await w.tick();
  t.deepEqual(w.started, [], 'busy.size counts against maxConcurrent: no room');
  const wide = fakeWorld({ heap: () => 250 * MiB, config: { ...CONFIG, recycle: { ...CONFIG.recycle, maxConcurrent: 2 } } });
  wide.recycler.busy.add(0);
  await wide.tick();
  t.deepEqual(wide.started.map((v) => v.slot), [1]);
});

test('over the limit right after readiness: held with one limit.below-baseline event, not recycled', async (t) => {
  const w = fakeWorld({ workers: 1, heap: () => 250 * MiB, readyAgoMs: 0 }); // ready just now
  for (let i = 0; i < 5; i++) {
    await w.tick();
    w.advance(1000);
  }
  t.deepEqual(w.started, []);
  const holds = w.reported.filter((e) => e.event === EVENTS.LIMIT_BELOW_BASELINE);
  t.is(holds.length, 1, 'said once, not every tick');
  t.like(holds[0], { level: 'warn', slot: 0, reason: REASONS.HEAP, value: 250 * MiB, limit: 200 * MiB });
  t.is(w.policy.workers[w.handles[0].id].baselineWarned, true, 'remembered in the policy state, keyed by the worker, not on the handle');
  t.false('baselineWarned' in w.handles[0], 'the tick writes nothing on the handle');
});

test('a failed recycle holds its slot: judged for nothing until the cooldown ends, its policy memory kept', async (t) => {
  const w = fakeWorld({ workers: 1, heap: () => 250 * MiB });
  w.inbox.push({ type: OUTCOME.FAILED, slot: 0, until: 1_000_000 + 30_000 });
  await w.tick();
  t.deepEqual(w.started, []);
  t.truthy(w.policy.workers[w.handles[0].id]);
  w.advance(30_000);
  await w.tick();
  t.like(w.started, [{ slot: 0, reason: REASONS.HEAP }], 'judged again once the cooldown is over');
});

test('a GC before a recycle is asked for once per interval: the outcome that one ran is remembered by the policy', async (t) => {
  const w = fakeWorld({ workers: 1, heap: () => 250 * MiB, config: { ...CONFIG, gcBeforeRecycle: true } });
  await w.tick();
  t.like(w.started, [{ slot: 0, reason: REASONS.HEAP, gcFirst: true }]);
  w.inbox.push({ type: OUTCOME.GC, id: w.handles[0].id, at: 1_000_000 });
  w.advance(1000);
  await w.tick();
  t.like(w.started[1], { slot: 0, gcFirst: false }, 'within a minute of the last GC the recycle goes straight to the replacement');
  w.advance(60_000);
  await w.tick();
  t.like(w.started[2], { slot: 0, gcFirst: true }, 'a minute later a GC may help again');
});

test('the heap prober\'s points reach the policy state of their worker, through the inbox', async (t) => {
  const w = fakeWorld({ workers: 2 });
  const point = { at: 999_000, heapAfter: 40 * MiB, forced: true, pauseMs: 3, sites: null, profiler: null };
  w.inbox.push({ type: OUTCOME.POINT, id: w.handles[1].id, point });
  await w.tick();
  t.deepEqual(w.policy.workers[w.handles[1].id].points, [point]);
  t.deepEqual(w.policy.workers[w.handles[0].id].points, [], 'the other worker has none');
  await w.tick();
  t.deepEqual(w.policy.workers[w.handles[1].id].points, [point], 'taken once: the inbox is emptied by the tick');
});

test('a worker that is not ready (draining, spawning) is sampled but never judged', async (t) => {
  const w = fakeWorld({ workers: 1, heap: () => 250 * MiB });
  w.pool.transition(w.handles[0], STATES.DRAINING, { retiring: { reason: 'stop', decidedAt: 0 }, drainStartedAt: 0 }); // READY -> DRAINING
  await w.tick();
  t.deepEqual(w.started, []);
  t.is(w.handles[0].window.size, 1, 'it was still sampled');
});

// decide() itself: pure, on a recorded real leak.
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

function replay(name, leak) {
  const series = recorded(name);
  const config = { ...CONFIG, workers: 1, limits: { ...LIMITS, heapUsed: null, rss: parseSize('2gb') }, leak };
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  const view = { id: 1, slot: 0, pid: 7, startedAt: series[0].t, readyAt: series[0].t, lastReplyAt: 0, jitterDraw: 0, window };
  let state = deepFreeze(newPolicyState(1));
  const out = [];
  for (const s of series) {
    window.push(s);
    view.lastReplyAt = s.t;
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

test('decide: the same input gives the same output (no hidden state)', (t) => {
  const leak = { window: parseDuration('60s'), minGrowth: parseRate('1mb/min'), action: 'recycle' };
  const a = replay('heap-leak-fast', leak).map((r) => r.verdicts.map((v) => v.value));
  const b = replay('heap-leak-fast', leak).map((r) => r.verdicts.map((v) => v.value));
  t.deepEqual(a, b);
});

test('past 16 workers a tick polls one group of slots; the groups take turns and every slot is judged on its own group\'s tick', async (t) => {
  const { pollGroups } = await import('../../../src/primary/tick/tick.js');
  t.is(pollGroups(16), 1, 'up to 16 workers: one tick polls all');
  t.is(pollGroups(40), 3);
  // Every worker is over its heap limit; maxConcurrent is wide so every verdict becomes a recycle.
  const w = fakeWorld({ workers: 40, heap: () => 250 * MiB, config: { ...CONFIG, recycle: { ...CONFIG.recycle, maxConcurrent: 64 } } });
  const asked = w.pool.asked;
  await w.tick({ index: 1, of: 3 });
  t.deepEqual(asked, w.handles.filter((h) => h.slot % 3 === 1).map((h) => h.slot), 'only slots 1, 4, 7, … are polled');
  t.deepEqual(w.started.map((v) => v.slot), asked, 'and only they are judged');
  await w.tick({ index: 2, of: 3 });
  await w.tick({ index: 0, of: 3 });
  t.deepEqual([...asked].sort((a, b) => a - b), w.handles.map((h) => h.slot), 'one round of groups polls every slot once');
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
