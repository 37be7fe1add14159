// The judgements that keep a fast leak under its limit: sampling tightens while a worker rises
// toward its rss limit, and a worker rising that fast skips the GC-before-recycle that cannot help.
import test from 'ava';
import { hotPoll, HOT_MS } from '../../../src/core/forecast/hot-poll.js';
import { risingFast } from '../../../src/core/policy/gc-recheck.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { REASONS } from '../../../src/constants.js';

const MiB = 1024 * 1024;
const CONFIG = { limits: { rss: 150 * MiB }, pollInterval: 1000 };

function worker(points) {
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  for (const [t, mib] of points) window.push({ t, rss: mib * MiB, treeRss: mib * MiB, heapUsed: mib * MiB / 2 });
  return { window };
}

test('hotPoll: a worker 20 MB/s from its limit makes the next tick come sooner; a flat or slow one does not', (t) => {
  t.is(hotPoll([worker([[0, 60], [1000, 80]])], 1000, CONFIG), HOT_MS, '70 MiB to go at 20 MiB/s: 3.5 s');
  t.is(hotPoll([worker([[0, 60], [1000, 60]])], 1000, CONFIG), null, 'flat');
  t.is(hotPoll([worker([[0, 60], [1000, 61]])], 1000, CONFIG), null, '89 MiB to go at 1 MiB/s: 89 s');
  t.is(hotPoll([worker([[0, 140], [1000, 160]])], 1000, CONFIG), null, 'over already: the verdict\'s business');
  t.is(hotPoll([worker([[0, 60], [1000, 80]])], 5000, CONFIG), null, 'samples too old to say');
  t.is(hotPoll([worker([[0, 60], [1000, 80]])], 1000, { ...CONFIG, limits: { rss: null } }), null, 'no rss limit');
  t.is(hotPoll([worker([[0, 60]]), worker([[0, 60], [1000, 100]])], 1000, CONFIG), HOT_MS, 'any one worker');
});

test('risingFast: a tenth of the limit within 5 s at the last few seconds\' rate skips the GC; a slow rise keeps it', (t) => {
  const v = { reason: REASONS.RSS, limit: 150 * MiB };
  t.true(risingFast(worker([[0, 100], [1000, 110], [2000, 125], [3000, 151]]).window, v, 3000), '17 MiB/s');
  t.false(risingFast(worker([[0, 148], [1000, 149], [2000, 150], [3000, 151]]).window, v, 3000), '1 MiB/s: a GC may help');
  t.false(risingFast(worker([[3000, 151]]).window, v, 3000), 'one sample says nothing');
  t.false(risingFast(worker([[0, 50], [1000, 50], [2000, 209], [3000, 209]]).window, v, 3000), 'garbage built in one go, then flat: a GC may free it');
  t.false(risingFast(worker([[1000, 50], [2000, 209]]).window, v, 2000), 'two samples are a step, not a rise');
  t.false(risingFast(worker([[0, 100], [3000, 151]]).window, { reason: REASONS.MAX_AGE, limit: 1000 }, 3000), 'not a memory reason');
  t.true(risingFast(worker([[0, 100], [500, 130], [1000, 160]]).window, { reason: REASONS.HEAP, limit: 60 * MiB }, 1000), 'heap on heapUsed');
});
