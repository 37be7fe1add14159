// Recycles people ask for, in-process, against a scripted recycler: a slot asked twice is recycled
// once, a slot that is not there is a usage error naming the range, and a reload rolls every slot
// in at most maxConcurrent lanes and counts what was replaced.
import test from 'ava';
import { ManualRecycles } from '../../../src/primary/recycle/manual-recycles.js';
import { WorkerRecords } from '../../../src/primary/lifecycle/worker-records.js';
import { REASONS, RECYCLE_OUTCOMES as OUT } from '../../../src/constants.js';

function world({ slots = 3, maxConcurrent = 1, outcome = () => OUT.RECYCLED } = {}) {
  const pool = new WorkerRecords();
  pool.resize(slots);
  const calls = [];
  let inFlight = 0;
  let most = 0;
  const releases = [];
  const recycler = {
    config: { recycle: { maxConcurrent } }, stopping: false,
    recycleWhenRoom: async (slot, v) => {
      calls.push({ slot, ...v });
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => releases.push(r));
      inFlight--;
      return outcome(slot);
    },
  };
  return { manual: new ManualRecycles({ recycler, pool }), calls, releases, most: () => most };
}

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
  t.deepEqual(await a, { slot: 1, reason: REASONS.MANUAL, result: OUT.RECYCLED });
  t.is(await b, await a);
  t.is(w.calls.length, 1);
});

test('a slot that is not there is a usage error naming the range', (t) => {
  const w = world();
  t.throws(() => w.manual.recycleSlot(3), { code: 'NODESUP_ERR_USAGE', message: /expected 0\.\.2, got 3/ });
});

test('a reload rolls every slot with reason reload, at most maxConcurrent at once, and counts the replaced', async (t) => {
  const w = world({ slots: 5, maxConcurrent: 2, outcome: (slot) => (slot === 3 ? OUT.FAILED : OUT.RECYCLED) });
  const done = w.manual.reload();
  await drain(w);
  const r = await done;
  t.deepEqual(w.calls.map((c) => c.slot).sort(), [0, 1, 2, 3, 4]);
  t.true(w.calls.every((c) => c.reason === REASONS.RELOAD));
  t.is(w.most(), 2);
  t.is(r.reloaded, 4);
  t.like(r.results.find((x) => x.slot === 3), { result: OUT.FAILED });
});
