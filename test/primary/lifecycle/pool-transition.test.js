// The worker records (which the pool extends) are the one writer of a worker's lifecycle: each move
// is checked against the transition table and may carry only the facts that belong to it.
import test from 'ava';
import { WorkerRecords } from '../../../src/primary/lifecycle/worker-records.js';
import { STATES } from '../../../src/constants.js';

const pool = new WorkerRecords();
const handle = (state) => ({ state, retiring: null, drainStartedAt: null, forced: false, notReady: false, readyAt: null, tree: [] });

test('a drain records why and when, and the first reason stays', (t) => {
  const h = handle(STATES.READY);
  pool.transition(h, STATES.DRAINING, { retiring: { reason: 'rss', decidedAt: 1 }, drainStartedAt: 5 });
  t.is(h.state, STATES.DRAINING);
  pool.transition(h, STATES.KILLING, { retiring: { reason: 'stop', decidedAt: 9 }, forced: true });
  t.deepEqual(h.retiring, { reason: 'rss', decidedAt: 1 }, 'a stop during a recycle does not rename it');
  t.true(h.forced);
});

test('an impossible move throws, and so does a fact that does not belong to the move', (t) => {
  t.throws(() => pool.transition(handle(STATES.DRAINING), STATES.READY), { message: /impossible worker transition draining -> ready/ });
  t.throws(() => pool.transition(handle(STATES.SPAWNING), STATES.READY, { forced: true }), { message: /cannot set forced/ });
  const gone = handle(STATES.EXITED);
  t.throws(() => pool.transition(gone, STATES.KILLING));
});

test('rememberTree: a poll replaces the list, a drain adds to it, unknown start times are skipped', (t) => {
  const h = handle(STATES.READY);
  pool.rememberTree(h, [{ pid: 1, start: 10 }, { pid: 2, start: 20 }], { replace: true });
  pool.rememberTree(h, [{ pid: 3, start: 30 }, { pid: 4, start: null }]);
  t.deepEqual(h.tree.map((p) => p.pid), [1, 2, 3]);
  pool.rememberTree(h, [{ pid: 1, start: 10 }], { replace: true });
  t.deepEqual(h.tree.map((p) => p.pid), [1], 'children that exited are forgotten at the next poll');
});

test('which worker serves a slot: a first start at once, a replacement only when promoted; an exit frees the slot', (t) => {
  const records = new WorkerRecords();
  records.resize(2);
  const first = { ...handle(STATES.SPAWNING), id: records.nextId(), slot: 1 };
  records.add(first, { serve: true });
  t.is(records.currentOf(1), first);
  t.deepEqual(records.serving(), [], 'not serving before it is ready');
  records.markReady(first, 10);
  t.deepEqual(records.serving(), [first]);
  const next = { ...handle(STATES.SPAWNING), id: records.nextId(), slot: 1, startedAt: 20 };
  records.add(next);
  t.is(records.currentOf(1), first, 'a replacement does not serve until promoted');
  records.promote(next);
  t.is(records.currentOf(1), next);
  t.false(records.remove(first), 'the old worker was no longer serving its slot when it exited');
  t.true(records.remove(next));
  t.is(records.currentOf(1), null);
  t.is(next.state, STATES.EXITED);
  t.not(first.id, next.id);
});

test('startupMs is the slowest of the recent startups (spawn → ready)', (t) => {
  const records = new WorkerRecords();
  records.resize(1);
  t.is(records.startupMs(), null);
  for (const [startedAt, readyAt] of [[0, 300], [1000, 1100], [2000, 2200]]) {
    const h = { ...handle(STATES.SPAWNING), id: records.nextId(), slot: 0, startedAt };
    records.add(h);
    records.markReady(h, readyAt);
  }
  t.is(records.startupMs(), 300);
});
