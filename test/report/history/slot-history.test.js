// The slot history keeps a slot's memory across its workers, bounded, with the events that explain it.
import test from 'ava';
import { EventEmitter } from 'node:events';
import { createSlotHistory, pointOf, FINE_SPAN_MS, COARSE_MS, MAX_EVENTS, MAX_MARKS } from '../../../src/report/history/slot-history.js';
import { SeriesRing, bucketMax } from '../../../src/report/history/series-ring.js';
import { EVENTS } from '../../../src/constants.js';

const MiB = 1024 * 1024;
const sample = (t, rss, more = {}) => ({ t, treeRss: rss, rss, heapUsed: rss / 2, external: MiB, native: rss / 4, childrenRss: 0, gcMs: 0, delayP99: 2, ...more });

function setup(pollInterval = 1000) {
  const events = new EventEmitter();
  const h = createSlotHistory(events, { pollInterval });
  const feed = (slot, pid, s) => events.emit('sample', { slot, pid, sample: s });
  const emit = (fields, time) => events.emit('event', fields, { level: 'info', time });
  return { events, h, feed, emit };
}

test('pointOf: memory parts, the GC share since the same worker\'s previous sample, unknown stays null', (t) => {
  const prev = { pid: 1, t: 0, gcMs: 100 };
  t.deepEqual(pointOf({ pid: 1, t: 1000, treeRss: 10, heapUsed: 5, external: 1, native: 2, childrenRss: 3, gcMs: 150, delayP99: 4 }, prev), [10, 5, 1, 2, 3, 0.05, 4]);
  t.is(pointOf({ pid: 2, t: 1000, rss: 9, gcMs: 150 }, prev)[5], null, 'a new worker has no share yet');
  t.is(pointOf({ pid: 2, t: 1000, treeRss: null, rss: 9 }, null)[0], 9, 'rss of the worker alone when the tree is unknown');
  t.is(pointOf({ pid: 2, t: 1000, treeRss: null, rss: null }, null)[0], null);
});

test('a slot\'s curve spans recycles: two workers in a row are one series, with the recycle between them', (t) => {
  const { h, feed, emit } = setup();
  for (let i = 0; i < 10; i++) feed(0, 100, sample(i * 1000, (50 + i * 10) * MiB));
  emit({ event: EVENTS.WORKER_RECYCLE, slot: 0, pid: 100, reason: 'rss', value: 140 * MiB, limit: 130 * MiB }, 9500);
  emit({ event: 'supervisor.start' }, 9500); // no slot: not kept
  for (let i = 10; i < 20; i++) feed(0, 200, sample(i * 1000, (50 + (i - 10) * 10) * MiB));
  const r = h.range(0, { now: 20_000, rangeMs: 20_000, points: 20 });
  t.deepEqual(r.rss.map((v) => v / MiB), [50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140]);
  t.deepEqual(r.events.map((e) => [e.event, e.t, e.reason]), [[EVENTS.WORKER_RECYCLE, 9500, 'rss']]);
  t.is(h.range(1, { now: 20_000, rangeMs: 20_000, points: 20 }), null, 'a slot never seen');
});

test('buckets keep the peak: 4 samples a bucket, the max of each', (t) => {
  const ring = new SeriesRing(16, ['v']);
  [1, 5, 2, 3, 9, 1, 1, 1].forEach((v, i) => ring.push(i, [v]));
  t.deepEqual(bucketMax([ring], ['v'], 0, 8, 2).v, [5, 9]);
  t.deepEqual(bucketMax([ring], ['v'], 0, 16, 4).v, [5, 9, null, null], 'no point: null, not 0');
});

test('bounded: past 30 minutes the fine ring drops the oldest, 6 hours stay as 30 s peaks', (t) => {
  const { h, feed } = setup(1000);
  const hours = 7;
  for (let s = 0; s < hours * 3600; s++) feed(0, 1, sample(s * 1000, (s % 3600) * 1024));
  const [d] = h.dump();
  t.is(d.fine.t.length, FINE_SPAN_MS / 1000 + 1);
  t.is(d.fine.t.at(-1), (hours * 3600 - 1) * 1000);
  t.is(d.coarse.t.length, 6 * 3600_000 / COARSE_MS + 1, '720 complete buckets and the current one');
  t.is(d.coarse.stepMs, COARSE_MS);
  // The last complete bucket holds seconds 25140..25169 of the run, (s % 3600) KiB each: its peak is 3569 KiB.
  t.is(d.coarse.rss.at(-2), 3569 * 1024, 'peak of the last complete bucket');
  t.is(d.coarse.t.at(-2), 25140 * 1000);
  const bytesBefore = h.bytes();
  for (let s = hours * 3600; s < hours * 3600 + 600; s++) feed(0, 1, sample(s * 1000, MiB));
  t.is(h.bytes(), bytesBefore, 'full rings do not grow');
  // A 6-hour view comes from the coarse buckets and still reaches the newest sample.
  const now = (hours * 3600 + 600) * 1000;
  const six = h.range(0, { now, rangeMs: 6 * 3600_000, points: 72 });
  t.true(six.rss.every((v) => v !== null), 'every 5-minute bucket of 6 hours has a value');
  t.is(six.rss.at(-1), MiB);
});

test('events are bounded per slot and leak sites are trimmed to the top 3', (t) => {
  const { h, feed, emit } = setup();
  feed(2, 7, sample(0, MiB));
  const sites = Array.from({ length: 8 }, (_, i) => ({ fn: `f${i}`, file: 'a.js', line: i, column: 1, bytesPerMin: 10, share: 0.1, extra: 'x' }));
  emit({ event: EVENTS.LEAK_WARNING, slot: 2, pid: 7, kind: 'heap', growthBytesPerSec: 100, projectedLimitInSec: 60, sites }, 1);
  for (let i = 0; i < MAX_EVENTS + 50; i++) emit({ event: EVENTS.WORKER_GC, slot: 2, pid: 7, rssBefore: 2, rssAfter: 1 }, 2 + i);
  for (let i = 0; i < MAX_MARKS + 10; i++) emit({ event: EVENTS.WORKER_RECYCLE, slot: 2, pid: 7, reason: 'rss' }, 1000 + i);
  const [d] = h.dump(2);
  t.is(d.events.length, MAX_EVENTS + MAX_MARKS, 'the notes and the marks, each bounded');
  t.is(d.events.filter((e) => e.event === EVENTS.WORKER_RECYCLE).length, MAX_MARKS);
  t.is(d.events.filter((e) => e.event === EVENTS.WORKER_GC).at(-1).t, MAX_EVENTS + 51);
  t.is(d.events.at(-1).t, 1000 + MAX_MARKS + 9, 'oldest first, the newest recycle last');
  emit({ event: EVENTS.LEAK_WARNING, slot: 2, pid: 7, kind: 'heap', growthBytesPerSec: 100, projectedLimitInSec: 60, sites }, 9999);
  const leak = h.dump(2)[0].events.at(-1);
  t.is(leak.sites.length, 3);
  t.deepEqual(Object.keys(leak.sites[0]), ['fn', 'file', 'line', 'column', 'bytesPerMin', 'share']);
  h.close();
  emit({ event: EVENTS.WORKER_GC, slot: 2, pid: 7 }, 10_000);
  t.is(h.dump(2)[0].events.at(-1).t, 9999, 'closed: no longer listening');
});
