// The overhead bench tells the rounds a suspicion ran through from the others by the nodesup arm's
// debug log: spans per worker, open ones running to the end, and what the cleared ones took.
import test from 'ava';
import { suspicionSpans, suspicionTotals, overlaps } from '../../bench/lib/suspicions.js';

const log = [
  { event: 'worker.ready', pid: 1, time: 0 },
  { event: 'leak.suspected', pid: 1, time: 1000, heap: true, external: false },
  { event: 'leak.suspected', pid: 2, time: 2000, heap: true, external: true },
  { event: 'leak.cleared', pid: 1, time: 21_000, points: 2, forcedGcs: 1 },
  { event: 'leak.cleared', pid: 3, time: 22_000, points: 9, forcedGcs: 9 }, // never began here: not counted as a span
  { event: 'leak.suspected', pid: 1, time: 90_000, heap: false, external: true },
  { event: 'leak.cleared', pid: 1, time: 110_000, points: 2, forcedGcs: 2 },
];

test('suspicionSpans: each suspicion from its start to its clearing, per worker; one still open runs to the end', (t) => {
  t.deepEqual(suspicionSpans(log, 200_000), [
    { pid: 1, from: 1000, to: 21_000, what: 'heap', points: 2 },
    { pid: 1, from: 90_000, to: 110_000, what: 'external', points: 2 },
    { pid: 2, from: 2000, to: 200_000, what: 'heap+external', points: null },
  ]);
});

test('overlaps: a burst touched by any span, and not one that falls between them', (t) => {
  const spans = suspicionSpans(log.filter((e) => e.pid !== 2), 200_000);
  t.true(overlaps(spans, 20_000, 23_000));
  t.false(overlaps(spans, 30_000, 33_000));
  t.false(overlaps(spans, 110_000, 113_000), 'a burst that begins as a suspicion clears is not under it');
});

test('suspicionTotals: begun, cleared, worker-seconds under one, and the points of those cleared', (t) => {
  t.deepEqual(suspicionTotals(log, 200_000), { started: 3, cleared: 3, workerSeconds: 20 + 20 + 198, points: 13, forcedGcs: 12 });
});
