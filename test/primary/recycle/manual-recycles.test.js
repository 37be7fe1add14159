// Recycles people ask for, in-process, against a scripted recycler: a slot asked twice is recycled
// once, a slot that is not there is a usage error naming the range, and a reload rolls every slot
// in at most maxConcurrent lanes, stops at the first failure (slots already started finish), says
// why a slot failed, pins the serving code after a failure and puts its document on the stream.
import test from 'ava';
import { EventEmitter } from 'node:events';
import { ManualRecycles, tailLines } from '../../../src/primary/recycle/manual-recycles.js';
import { WorkerRecords } from '../../../src/primary/lifecycle/worker-records.js';
import { EVENTS, REASONS, RECYCLE_OUTCOMES as OUT } from '../../../src/constants.js';

const NO_PID = 1 << 23; // above pid_max: no real process

// The pool's records, with the pin a failed reload sets (pool.js), and workers that are plain data.
class Pins extends WorkerRecords {
  constructor() {
    super();
    this.lastReady = { script: '/srv/app/releases/v1/server.js', cwd: '/srv/app/releases/v1' };
    this.pin = null;
  }

  pinServing() {
    this.pin = this.lastReady;
    return this.pin;
  }

  unpin() {
    this.pin = null;
  }
}

// `outcome(slot)`: what the recycler says of each slot; `trace(slot)`: the old and new workers it hands back.
function world({ slots = 3, maxConcurrent = 1, outcome = () => OUT.RECYCLED, trace = () => ({}) } = {}) {
  const pool = new Pins();
  pool.resize(slots);
  const calls = [];
  let inFlight = 0;
  let most = 0;
  const releases = [];
  const recycler = Object.assign(new EventEmitter(), {
    config: { recycle: { maxConcurrent, readyTimeout: 30_000 } }, stopping: false,
    hasRoom: () => inFlight < maxConcurrent,
    recycleWhenRoom: async (slot, v, tr) => {
      calls.push({ slot, ...v });
      inFlight++;
      most = Math.max(most, inFlight);
      Object.assign(tr, trace(slot));
      await new Promise((r) => releases.push(r));
      inFlight--;
      recycler.emit('freed');
      return outcome(slot);
    },
  });
  const events = [];
  const report = (level, fields) => events.push({ level, ...fields });
  return { manual: new ManualRecycles({ recycler, pool, report }), pool, recycler, calls, releases, events, most: () => most };
}

const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

const drain = async (w) => {
  for (let i = 0; i < 20; i++) {
    while (w.releases.length) w.releases.shift()();
    await new Promise((r) => setImmediate(r));
  }
};

test('a slot asked twice while its recycle runs is recycled once; both asks get its answer', async (t) => {
  const w = world();
  const a = w.manual.recycleSlot(1);
  const b = w.manual.recycleSlot('1');
  await drain(w);
  t.deepEqual(await a, { slot: 1, reason: REASONS.MANUAL, result: OUT.RECYCLED, oldPid: null, newPid: null });
  t.is(await b, await a);
  t.is(w.calls.length, 1);
});

test('a slot that is not there is a usage error naming the range', (t) => {
  const w = world();
  t.throws(() => w.manual.recycleSlot(3), { code: 'NODESUP_ERR_USAGE', message: /expected 0\.\.2, got 3/ });
});

test('a reload rolls every slot with reason reload, at most maxConcurrent at once, and says so', async (t) => {
  const w = world({ slots: 5, maxConcurrent: 2 });
  const heard = [];
  const done = w.manual.reload({ onStart: (o) => heard.push(['start', o.workers, o.maxConcurrent]), onSlot: (r) => heard.push(['slot', r.slot]) });
  await drain(w);
  const r = await done;
  t.deepEqual(w.calls.map((c) => c.slot).sort(), [0, 1, 2, 3, 4]);
  t.true(w.calls.every((c) => c.reason === REASONS.RELOAD));
  t.is(w.most(), 2);
  t.like(r, { result: 'ok', workers: 5, reloaded: 5, oldCode: 0, stoppedAt: null, stoppedBy: null, pinned: null, by: 'control' });
  t.deepEqual(heard[0], ['start', 5, 2]);
  t.is(heard.filter(([k]) => k === 'slot').length, 5);
  t.like(w.events.at(-1), { level: 'info', event: EVENTS.RELOAD, result: 'ok', reloaded: 5 });
});

test('a reload stops at the first failure: slots already started finish, none starts after it, the serving code is pinned', async (t) => {
  const w = world({ slots: 5, maxConcurrent: 2, outcome: (slot) => (slot === 1 ? OUT.FAILED : OUT.RECYCLED) });
  const done = w.manual.reload({ by: 'SIGHUP' });
  await settle();
  t.deepEqual(w.calls.map((c) => c.slot), [0, 1], 'two lanes');
  const [slot0, slot1] = w.releases.splice(0);
  slot1(); // slot 1 fails while slot 0 still starts
  await settle();
  slot0(); // slot 0 started before the failure: it finishes
  await drain(w);
  const r = await done;
  t.deepEqual(w.calls.map((c) => c.slot), [0, 1], 'nothing started after the failure');
  t.like(r, { result: 'partial', workers: 5, reloaded: 1, oldCode: 4, stoppedAt: 1, stoppedBy: 'failure', notStarted: [2, 3, 4], by: 'SIGHUP' });
  t.deepEqual(r.pinned, w.pool.lastReady);
  t.is(w.pool.pin, w.pool.lastReady);
  t.like(w.events.at(-1), { level: 'warn', event: EVENTS.RELOAD, result: 'partial', stoppedAt: 1 });

  // A reload that succeeds lifts the pin.
  const w2 = world({ slots: 2 });
  w2.pool.pinServing();
  const again = w2.manual.reload();
  await drain(w2);
  t.is((await again).result, 'ok');
  t.is(w2.pool.pin, null);
});

test('a failed slot says why: the new worker\'s exit code and its last stderr lines, or the ready timeout', async (t) => {
  const worker = (pid, extra = {}) => ({ pid, startedAt: 1000, readyAt: null, retiring: null, exitStatus: null, stderrTail: '', outputDone: Promise.resolve(), drainStartedAt: null, exitedAt: null, forced: false, ...extra });
  const crashed = worker(NO_PID + 2, { exitStatus: { code: 1, signal: null }, stderrTail: 'x'.repeat(10) + '\nError: DATABASE_URL is not set\n    at Object.<anonymous> (/srv/app/releases/v2/server.js:1:39)\n\nNode.js v22.0.0\n' });
  const slow = worker(NO_PID + 4, { retiring: { reason: 'spare', decidedAt: 0 } });
  const w = world({
    slots: 2, outcome: () => OUT.FAILED,
    trace: (slot) => (slot === 0 ? { old: worker(NO_PID + 1), next: crashed } : { old: worker(NO_PID + 3), next: slow }),
  });
  const a = w.manual.recycleSlot(0);
  const b = w.manual.recycleSlot(1);
  await drain(w);
  t.deepEqual(await a, {
    slot: 0, reason: 'manual', result: 'failed', oldPid: NO_PID + 1, newPid: NO_PID + 2,
    failure: { why: 'exited', code: 1, signal: null, stderr: ['xxxxxxxxxx', 'Error: DATABASE_URL is not set', '    at Object.<anonymous> (/srv/app/releases/v2/server.js:1:39)', '', 'Node.js v22.0.0'] },
  });
  t.deepEqual((await b).failure, { why: 'timeout', readyTimeoutMs: 30_000, stderr: [] });
});

test('a replaced slot says its pids, the new worker\'s start-up and the old one\'s drain', async (t) => {
  const old = { pid: NO_PID + 1, drainStartedAt: 5000, exitedAt: 6100, forced: false };
  const next = { pid: NO_PID + 2, startedAt: 1000, readyAt: 1400 };
  const w = world({ slots: 1, trace: () => ({ old, next }) });
  const r = w.manual.recycleSlot(0);
  await drain(w);
  t.deepEqual(await r, { slot: 0, reason: 'manual', result: 'recycled', oldPid: NO_PID + 1, newPid: NO_PID + 2, readyMs: 400, drainedMs: 1100 });
});

test('a stderr tail cut at its bound loses its first, partial line', (t) => {
  t.deepEqual(tailLines('a\nb\n\n'), ['a', 'b']);
  t.deepEqual(tailLines(`${'y'.repeat(4092)}\nend\n`), ['end']);
  t.is(tailLines(Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n')).length, 20);
});
