// The recycle procedure (docs/architecture.md, "The recycle") in-process: a fake clock, the real worker records with scripted
// workers (they become ready, answer a GC, exit when the test says), and a scripted sampler. What
// comes out is the order of what happened to the workers, the events and the outcomes the policy
// learns. Pids are above Linux's pid_max, so no real process can ever be signalled.
import test from 'ava';
import { Recycler } from '../../../src/primary/recycle/recycler.js';
import { WorkerRecords } from '../../../src/primary/lifecycle/worker-records.js';
import { Inbox } from '../../../src/primary/tick/inbox.js';
import { OUTCOME } from '../../../src/core/policy/outcomes.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { EVENTS, REASONS, RECYCLE_OUTCOMES as OUT, SPAWN_CAUSES, STATES } from '../../../src/constants.js';
import { KIND } from '../../../src/protocol.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const MiB = 1024 * 1024;
const NO_PID = 1 << 23; // above pid_max (2^22 at most on Linux)
const CONFIG = {
  workers: 2, pollInterval: 1000, gcBeforeRecycle: true,
  limits: { rss: 200 * MiB, heapUsed: null, native: null, totalRss: null, maxAge: null, maxRequests: null, jitter: 0, sustain: 0 },
  recycle: { readyTimeout: 30_000, killTimeout: 10_000, maxConcurrent: 1 },
};

class ScriptedPool extends WorkerRecords {
  constructor(clock) {
    super({ now: clock.now });
    this.clock = clock;
    this.log = [];
    this.gc = null; // (h) => the agent's reply to a GC, or null
  }

  spawn(slot, cause = SPAWN_CAUSES.INITIAL) {
    const id = this.nextId();
    let ready;
    let exit;
    const h = {
      id, slot, pid: NO_PID + id, state: STATES.SPAWNING, startedAt: this.now(), readyAt: null, lastReplyAt: this.now(),
      window: new SampleWindow({ maxAgeMs: 600_000 }), tree: [], retiring: null, drainStartedAt: null, forced: false, notReady: false,
      probe: { polls: 0, pssBase: null }, ready: new Promise((r) => { ready = r; }), exited: new Promise((r) => { exit = r; }),
    };
    h.becomeReady = (ok = true) => {
      if (ok) this.markReady(h, this.now());
      ready(ok);
    };
    h.exit = () => {
      this.remove(h);
      this.log.push(`exit ${id}`);
      exit({ code: 0, signal: null });
    };
    this.add(h, { serve: cause !== SPAWN_CAUSES.REPLACE });
    this.log.push(`spawn ${id}`);
    return h;
  }

  whenReady(h) {
    return h.ready;
  }

  async request(h, kind) {
    if (kind === KIND.SITES) {
      this.log.push(`sites ${h.id}`);
      return { profile: { total: 100, sites: [{ fn: 'cachePage', file: 'lib/pages.js', line: 9, bytes: 90 }, { fn: 'noise', file: 'a.js', line: 1, bytes: 10 }] } };
    }
    if (kind !== KIND.GC) return null;
    this.log.push(`gc ${h.id}`);
    return this.gc?.(h) ?? null;
  }

  disconnect(h) {
    this.log.push(`drain ${h.id}`);
  }
}

// rss(h): each worker's memory as the sampler reads it now.
function world({ config = CONFIG, rss = () => 250 * MiB } = {}) {
  const clock = new FakeClock();
  const pool = new ScriptedPool(clock);
  pool.resize(config.workers);
  const sampleOf = (h) => ({ t: clock.now(), pid: h.pid, rss: rss(h), treeRss: rss(h), heapUsed: 50 * MiB });
  const sampler = {
    sample: (h, stats) => { const s = { ...sampleOf(h), heapUsed: stats?.heapUsed ?? 50 * MiB }; pool.record(h, s); return s; },
    treeRss: (h) => rss(h),
  };
  const events = [];
  const levels = [];
  const inbox = new Inbox();
  const recycler = new Recycler({ pool, sampler, inbox, now: clock.now, timers: clock, report: (level, fields) => { events.push(fields); levels.push(level); pool.log.push(fields.event); } })
    .configure({ config, totalLimit: null });
  const workers = Array.from({ length: config.workers }, (_, slot) => {
    const h = pool.spawn(slot);
    h.becomeReady();
    pool.record(h, sampleOf(h));
    return h;
  });
  pool.log.length = 0;
  return { clock, pool, recycler, events, levels, inbox, workers };
}

const over = { reason: REASONS.RSS, value: 250 * MiB, limit: 200 * MiB };

test('replacement first: the new worker is forked and ready before the old one is drained, and then serves the slot', async (t) => {
  const w = world();
  const [old] = w.workers;
  const done = w.recycler.recycle(0, over);
  await w.clock.settle();
  const next = w.pool.records().find((h) => h.slot === 0 && h !== old);
  t.deepEqual(w.pool.log, [`sites ${old.id}`, EVENTS.WORKER_RECYCLE, `spawn ${next.id}`], 'what it retained read, the recycle announced, then the replacement forked; the old worker untouched');
  t.is(w.pool.currentOf(0), old, 'the old worker serves until the replacement is ready');
  next.becomeReady();
  await w.clock.settle();
  t.is(w.pool.currentOf(0), next);
  t.is(old.state, STATES.DRAINING);
  t.like(old.retiring, { reason: REASONS.RSS });
  old.exit();
  t.is(await done, OUT.RECYCLED);
  t.deepEqual(w.pool.log.slice(3), [`drain ${old.id}`, `exit ${old.id}`]);
  t.like(w.events[0], { event: EVENTS.WORKER_RECYCLE, slot: 0, pid: old.pid, reason: REASONS.RSS, value: 250 * MiB, limit: 200 * MiB });
  t.deepEqual(w.events[0].retained.sites.map((x) => [x.fn, x.share]), [['cachePage', 0.9], ['noise', 0.1]], 'the sites the agent\'s profile holds, by share');
  t.like(w.inbox.take(), [{ type: OUTCOME.RECYCLED, slot: 0, id: old.id, reason: REASONS.RSS }], 'the slot\'s story learns of it');
});

test('a GC that helps: nothing is replaced, worker.gc says so, and the policy learns a GC ran', async (t) => {
  let rss = 250 * MiB;
  const w = world({ rss: () => rss });
  w.pool.gc = () => { rss = 150 * MiB; return { before: { heapUsed: 120 * MiB }, after: { heapUsed: 40 * MiB } }; };
  const [old] = w.workers;
  t.is(await w.recycler.recycle(0, { ...over, gcFirst: true }), OUT.GC);
  t.deepEqual(w.pool.log, [`gc ${old.id}`, EVENTS.WORKER_GC]);
  t.like(w.events[0], { event: EVENTS.WORKER_GC, stillOver: false, rssAfter: 150 * MiB, heapBefore: 120 * MiB, heapAfter: 40 * MiB });
  t.deepEqual(w.inbox.take(), [{ type: OUTCOME.GC, id: old.id, at: w.clock.now() }]);
  t.is(w.pool.currentOf(0), old);
});

test('a GC that does not help: after RSS stops falling, the recycle goes on to the replacement', async (t) => {
  const w = world();
  w.pool.gc = () => ({ before: { heapUsed: 120 * MiB }, after: { heapUsed: 110 * MiB } });
  const [old] = w.workers;
  const done = w.recycler.recycle(0, { ...over, gcFirst: true });
  await w.clock.advance(1000);
  const next = w.pool.records().find((h) => h.slot === 0 && h !== old);
  t.truthy(next, 'a replacement was forked');
  t.like(w.events.find((e) => e.event === EVENTS.WORKER_GC), { stillOver: true });
  next.becomeReady();
  await w.clock.settle();
  old.exit();
  t.is(await done, OUT.RECYCLED);
  t.deepEqual(w.pool.log.slice(0, 3), [`gc ${old.id}`, EVENTS.WORKER_GC, `sites ${old.id}`]);
});

test('a GC that gets no answer is said (answered: false, at warn) and the recycle goes on', async (t) => {
  const w = world();
  w.pool.gc = () => null; // the agent never answered within the GC's timeout
  const [old] = w.workers;
  const done = w.recycler.recycle(0, { ...over, gcFirst: true });
  await w.clock.settle();
  const next = w.pool.records().find((h) => h.slot === 0 && h !== old);
  t.truthy(next, 'a replacement was forked');
  t.like(w.events.find((e) => e.event === EVENTS.WORKER_GC), { slot: 0, pid: old.pid, reason: REASONS.RSS, answered: false, stillOver: true });
  t.is(w.levels[0], 'warn');
  next.becomeReady();
  await w.clock.settle();
  old.exit();
  t.is(await done, OUT.RECYCLED);
  t.deepEqual(w.pool.log.slice(0, 2), [`gc ${old.id}`, EVENTS.WORKER_GC]);
});

test('a replacement not ready in time: recycle.failed, it is retired, the old worker keeps serving, the slot is held', async (t) => {
  const w = world();
  const [old] = w.workers;
  const done = w.recycler.recycle(0, over);
  await w.clock.settle();
  const next = w.pool.records().find((h) => h.slot === 0 && h !== old);
  next.becomeReady(false);
  await w.clock.settle();
  t.is(next.state, STATES.DRAINING, 'the replacement is drained');
  next.exit();
  t.is(await done, OUT.FAILED);
  t.is(w.pool.currentOf(0), old);
  t.is(old.state, STATES.READY);
  t.like(w.events.find((e) => e.event === EVENTS.RECYCLE_FAILED), { slot: 0, pid: old.pid, replacementPid: next.pid, cancelled: false });
  t.deepEqual(w.inbox.take(), [{ type: OUTCOME.FAILED, slot: 0, until: w.clock.now() + CONFIG.recycle.readyTimeout }]);
});

test('drain, then force: a worker that outlives killTimeout is moved to killing, forced', async (t) => {
  const w = world();
  const [old] = w.workers;
  const retired = w.recycler.retire(old, { reason: REASONS.MANUAL, decidedAt: w.clock.now() });
  await w.clock.advance(CONFIG.recycle.killTimeout - 1);
  t.is(old.state, STATES.DRAINING);
  t.false(old.forced);
  await w.clock.advance(1);
  t.is(old.state, STATES.KILLING);
  t.true(old.forced);
  old.exit();
  await retired;
  t.deepEqual(w.pool.log, [`drain ${old.id}`, `exit ${old.id}`]);
});

test('maxConcurrent 1: a second recycle waits for the room, and starts when the first is done', async (t) => {
  const w = world();
  const [a, b] = w.workers;
  const first = w.recycler.recycleWhenRoom(0, { reason: REASONS.RELOAD, value: null, limit: null });
  const second = w.recycler.recycleWhenRoom(1, { reason: REASONS.RELOAD, value: null, limit: null });
  await w.clock.settle();
  t.is(w.pool.records().filter((h) => h.state === STATES.SPAWNING).length, 1, 'one start-up at a time');
  const nextA = w.pool.records().find((h) => h.slot === 0 && h !== a);
  nextA.becomeReady();
  await w.clock.settle();
  t.is(w.pool.records().filter((h) => h.slot === 1).length, 1, 'slot 1 still waits while slot 0 drains');
  a.exit();
  t.is(await first, OUT.RECYCLED);
  await w.clock.settle();
  const nextB = w.pool.records().find((h) => h.slot === 1 && h !== b);
  t.truthy(nextB, 'the room freed: slot 1 starts');
  nextB.becomeReady();
  await w.clock.settle();
  b.exit();
  t.is(await second, OUT.RECYCLED);
});

test('the early spare: a predicted crossing that does not come retires the spare, keeps the old worker, and tells the policy', async (t) => {
  const w = world({ rss: () => 150 * MiB });
  const [old] = w.workers;
  const v = { reason: REASONS.RSS, value: 150 * MiB, limit: 200 * MiB, predictive: true, crossingInMs: 5000 };
  const done = w.recycler.recycle(0, v);
  await w.clock.settle();
  t.deepEqual(w.pool.log.slice(0, 2), [`sites ${old.id}`, `spawn ${old.id + 2}`], 'a predicted recycle is not announced before its crossing');
  const spare = w.pool.records().find((h) => h.slot === 0 && h !== old);
  spare.becomeReady();
  await w.clock.settle();
  t.true(w.recycler.waiting.has(0), 'waiting for the crossing, out of the room of maxConcurrent');
  t.true(w.recycler.hasRoom(1));
  await w.clock.advance(2 * 5000 + 2 * CONFIG.pollInterval + 100);
  t.is(spare.state, STATES.DRAINING);
  spare.exit();
  t.is(await done, OUT.SPARE);
  t.is(w.pool.currentOf(0), old);
  t.like(w.inbox.take(), [{ type: OUTCOME.SPARE, id: old.id }]);
  t.like(w.events.find((e) => e.event === EVENTS.RECYCLE_SKIPPED), { slot: 0, predictive: true, sparePid: spare.pid });
  t.false(w.events.some((e) => e.event === EVENTS.WORKER_RECYCLE));
});

test('the early spare: a crossing that comes drains the old worker, and the recycle says it was predictive, with its lead', async (t) => {
  let rss = 150 * MiB;
  const w = world({ rss: (h) => (h.id <= 2 ? rss : 60 * MiB) });
  const [old] = w.workers;
  const done = w.recycler.recycle(0, { reason: REASONS.RSS, value: 150 * MiB, limit: 200 * MiB, predictive: true, crossingInMs: 5000 });
  await w.clock.settle();
  const spare = w.pool.records().find((h) => h.slot === 0 && h !== old);
  spare.becomeReady();
  await w.clock.advance(2000);
  t.is(old.state, STATES.READY, 'not yet: under the limit (no drain measured yet to meet it earlier)');
  rss = 201 * MiB;
  await w.clock.advance(100);
  t.is(old.state, STATES.DRAINING);
  t.is(w.pool.currentOf(0), spare);
  const recycle = w.events.find((e) => e.event === EVENTS.WORKER_RECYCLE);
  t.like(recycle, { slot: 0, predictive: true, value: 201 * MiB, limit: 200 * MiB });
  t.true(recycle.leadMs >= 2000);
  old.exit();
  t.is(await done, OUT.RECYCLED);
});

test('a stop: no replacement is forked once it began', async (t) => {
  const w = world();
  w.recycler.stop();
  t.is(await w.recycler.recycle(0, over), OUT.SKIPPED);
  t.false(w.pool.log.some((x) => x.startsWith('spawn')));
  t.is(w.pool.currentOf(0), w.workers[0]);
});
