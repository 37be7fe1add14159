// The history document (`nodesup history --json`): the GC share between polls is the series
// gcSharePoll, and gcShare, its name before, stays in format 1 as a copy of it.
import test from 'ava';
import { EventEmitter } from 'node:events';
import { createSlotHistory, SERIES } from '../../../src/report/history/slot-history.js';
import { historyDocument, DEPRECATED_SERIES } from '../../../src/report/history/history-doc.js';

const MiB = 1024 * 1024;
const config = { name: 'doc', pollInterval: 1000, workers: 2, limits: { rss: 512 * MiB, heapUsed: null, native: null } };

function world() {
  const events = new EventEmitter();
  const slotHistory = createSlotHistory(events, { pollInterval: 1000 });
  // 10 ms of GC a second, then 300 ms in one second: shares 0.01 and 0.3.
  const gcMs = [0, 10, 20, 30, 330, 340];
  gcMs.forEach((ms, i) => events.emit('sample', { slot: 0, pid: 7, sample: { pid: 7, t: i * 1000, treeRss: 100 * MiB, rss: 90 * MiB, gcMs: ms } }));
  return { slotHistory, doc: (args) => historyDocument({ slotHistory, config, now: 6000, workers: config.workers }, args) };
}

test('the series list names gcSharePoll, and gcShare as its deprecated copy', (t) => {
  const { doc } = world();
  const d = doc();
  t.true(SERIES.includes('gcSharePoll') && !SERIES.includes('gcShare'));
  t.deepEqual(d.series, [...SERIES, 'gcShare']);
  t.deepEqual(d.deprecated, { gcShare: 'gcSharePoll' });
  t.deepEqual(DEPRECATED_SERIES, { gcShare: 'gcSharePoll' });
});

test('every slot\'s columns carry gcShare with gcSharePoll\'s values, fine and coarse', (t) => {
  const { doc } = world();
  const [s] = doc().slots;
  t.deepEqual(s.fine.gcSharePoll.map((v) => (v === null ? null : Math.round(v * 1000) / 1000)), [null, 0.01, 0.01, 0.01, 0.3, 0.01]);
  t.deepEqual(s.fine.gcShare, s.fine.gcSharePoll);
  t.deepEqual(s.coarse.gcShare, s.coarse.gcSharePoll);
  for (const k of ['t', ...doc().series]) t.is(s.fine[k].length, s.fine.t.length, `${k} aligned with t`);
});

test('a range carries gcShare with gcSharePoll\'s values; a slot never seen is null', (t) => {
  const { doc } = world();
  const { range } = doc({ slot: 0, rangeMs: 6000, points: 6 });
  t.true(range.gcSharePoll.some((v) => v > 0.29));
  t.deepEqual(range.gcShare, range.gcSharePoll);
  t.is(doc({ slot: 1, rangeMs: 6000, points: 6 }).range, null);
});
