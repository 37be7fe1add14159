import test from 'ava';
import { planRecycles, memoryRoom } from '../../../src/core/policy/recycle-plan.js';

test('planRecycles: maxConcurrent, busy slots skipped, duplicates dropped', (t) => {
  const wanted = [{ slot: 0, reason: 'rss' }, { slot: 1, reason: 'heap' }, { slot: 0, reason: 'max-age' }, { slot: 2, reason: 'leak' }];
  t.deepEqual(planRecycles(wanted, new Set(), 1), [wanted[0]]);
  t.deepEqual(planRecycles(wanted, new Set([0]), 2), [wanted[1]]);
  t.deepEqual(planRecycles(wanted, new Set([5, 6]), 2), []);
  t.deepEqual(planRecycles(wanted, new Set(), 3), [wanted[0], wanted[1], wanted[3]]);
  // Slot 0's early replacement is ready and waits for its crossing: the one slot of room is free.
  t.deepEqual(planRecycles(wanted, new Set([0]), 1, new Set([0])), [wanted[1]], 'a waiting slot leaves the room to another');
  t.deepEqual(planRecycles(wanted, new Set([0]), 1), [], 'a slot still starting its replacement holds it');
});

test('planRecycles: a memory verdict is not held behind the room while the headroom has room; the rest are', (t) => {
  const wanted = [{ slot: 0, reason: 'max-age' }, { slot: 1, reason: 'rss', predictive: true }, { slot: 2, reason: 'rss' }, { slot: 3, reason: 'manual' }];
  t.deepEqual(planRecycles(wanted, new Set(), 1).map((v) => v.slot), [2], 'over the limit first, then about to cross, then the rest');
  t.deepEqual(planRecycles(wanted, new Set([5]), 1, new Set(), 2).map((v) => v.slot), [2, 1], 'slot 5 holds the room; two memory verdicts start beside it');
  t.deepEqual(planRecycles(wanted, new Set([5]), 1, new Set(), 1).map((v) => v.slot), [2], 'the headroom bounds them');
  t.deepEqual(planRecycles(wanted, new Set([5]), 1, new Set(), 0), [], 'no headroom known: the room of maxConcurrent holds');
});

test('memoryRoom: half the headroom in fresh workers (the smallest a serving worker has been), none when unknown', (t) => {
  const MiB = 1024 * 1024;
  const w = (...rss) => ({ window: { samples: rss.map((r, i) => ({ t: i, rss: r * MiB, treeRss: r * MiB })) } });
  const fleet = [w(50, 120, 150), w(60, 140), w(55)];
  t.is(memoryRoom(200 * MiB, fleet), 2, '100 MiB of the 200 free, in 50 MiB workers');
  t.is(memoryRoom(1000 * MiB, fleet), 3, 'never more than the workers there are');
  t.is(memoryRoom(60 * MiB, fleet), 0);
  t.is(memoryRoom(null, fleet), 0);
  t.is(memoryRoom(200 * MiB, [{ window: { samples: [] } }]), 0);
});
