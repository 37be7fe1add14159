// The poll tick in-process: a fake clock, the real worker records (what a pool keeps, without the
// forking) whose agents answer scripted stats, and a recorder standing in for the recycler. What
// goes in is samples and outcomes; what comes out is the recycles started and the events
// reported, and the policy state handed back for the next tick.
import test from 'ava';
import { runTick } from '../../../src/primary/tick/tick.js';
import { WorkerRecords } from '../../../src/primary/lifecycle/worker-records.js';
import { Inbox } from '../../../src/primary/tick/inbox.js';
import { OUTCOME } from '../../../src/core/policy/outcomes.js';
import { newPolicyState } from '../../../src/core/policy/decide.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { STATES, EVENTS, REASONS } from '../../../src/constants.js';

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
    if (this.hung?.has(h.slot)) return null; // its loop is blocked: the ask times out
    this.noteReply(h, this.now());
    const heap = this.heap(h.slot, this.now());
    return { heapUsed: heap, heapTotal: 300 * MiB, external: MiB, heapFloor: heap, ...this.more?.(h.slot, this.now()) };
  }

  requestEach(hs, kind, fieldsOf) {
    return Promise.all(hs.map((h, i) => this.request(h, kind, fieldsOf(i))));
  }
}

// `more`: what else each reply says (slot, now) => fields; `pid`: the workers' pid, this process's by default.
function fakeWorld({ workers = 2, heap = () => 50 * MiB, config = CONFIG, readyAgoMs = 119_000, more = null, pid = process.pid } = {}) {
  let clock = 1_000_000;
  const now = () => clock;
  const pool = new ScriptedPool(heap, now);
  pool.more = more;
  pool.resize(workers);
  const handles = Array.from({ length: workers }, (_, slot) => {
    const h = {
      id: pool.nextId(), slot, pid, state: STATES.SPAWNING, startedAt: clock - 120_000, readyAt: null, lastReplyAt: clock,
      jitterDraw: 0, tree: [], window: new SampleWindow({ maxAgeMs: 600_000 }), probe: { polls: 0, pssBase: null },
      retiring: null, drainStartedAt: null, forced: false, notReady: false, quietSkips: 0,
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
test('past 16 workers a tick polls one group of slots; the groups take turns and every slot is judged on its own group\'s tick', async (t) => {
  const { pollGroups } = await import('../../../src/primary/tick/group-size.js');
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

test('past 16 workers a quiet worker is asked every 4th poll, a busy one every poll; asked again, its silence counts from one interval back', async (t) => {
  const { QUIET_EVERY } = await import('../../../src/core/policy/quiet-poll.js');
  let served = 0;
  // No such pid: the memory in each sample is the reply's. Slot 0 serves requests, the rest are idle.
  const w = fakeWorld({
    workers: 20, pid: 2 ** 22 + 1, heap: () => 50 * MiB,
    more: (slot) => ({ rss: 90 * MiB, elu: 0.001, handles: 3, requests: slot === 0 ? ++served : 7 }),
  });
  const rounds = 4 * QUIET_EVERY;
  for (let i = 0; i < rounds; i++) {
    await w.tick();
    w.advance(1000);
  }
  const asks = (slot) => w.pool.asked.filter((s) => s === slot).length;
  t.is(asks(0), rounds, 'the worker serving requests is asked every poll');
  // Two asks make a worker quiet; from then on one poll in QUIET_EVERY.
  for (let slot = 1; slot < 20; slot++) t.is(asks(slot), 2 + Math.floor((rounds - 2) / QUIET_EVERY), `slot ${slot}`);

  const quiet = w.handles[5];
  const before = quiet.lastReplyAt;
  quiet.quietSkips = 0;
  w.pool.noteQuiet(quiet, 0, before + 4000, 1000);
  t.is(quiet.lastReplyAt, before, 'asked without a skip before: its last reply stands');
  quiet.quietSkips = 3;
  w.pool.noteQuiet(quiet, 0, before + 4000, 1000);
  t.is(quiet.lastReplyAt, before + 3000, 'asked after 3 skipped polls: as if it had answered the poll before this one');
});

test('past 16 workers a quiet worker that hangs is asked every poll after its first unanswered ask, and found unresponsive', async (t) => {
  const w = fakeWorld({ workers: 20, pid: 2 ** 22 + 1, more: () => ({ rss: 90 * MiB, elu: 0.001, handles: 3, requests: 7 }) });
  for (let i = 0; i < 8; i++) {
    await w.tick();
    w.advance(1000);
  }
  w.pool.hung = new Set([5]);
  const hungAt = w.handles[5].lastReplyAt;
  const timeout = CONFIG.unresponsive.timeout;
  let found = null;
  for (let i = 0; i < timeout / 1000 + 8 && !found; i++) {
    await w.tick();
    found = w.started.find((v) => v.slot === 5 && v.reason === REASONS.UNRESPONSIVE) ?? null;
    w.advance(1000);
  }
  t.truthy(found, 'a hung quiet worker is found unresponsive');
  // An unanswered ask leaves a sample with no loop reading, which is not quiet: it is asked every
  // poll from then on, and its silence counts from at most the polls skipped before that ask.
  const { QUIET_EVERY } = await import('../../../src/core/policy/quiet-poll.js');
  t.true(found.value <= timeout + QUIET_EVERY * 1000, `silent ${found.value} ms when found`);
  t.true(w.handles[5].lastReplyAt >= hungAt);
});

test('up to 16 workers every worker is asked every poll, quiet or not', async (t) => {
  const w = fakeWorld({ workers: 16, pid: 2 ** 22 + 1, more: () => ({ rss: 90 * MiB, elu: 0.001, handles: 3, requests: 7 }) });
  for (let i = 0; i < 8; i++) {
    await w.tick();
    w.advance(1000);
  }
  t.is(w.pool.asked.length, 16 * 8);
});
