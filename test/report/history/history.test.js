// The one count of recycles: the status counters come from the event stream, and a stop's exits
// (planned, no reason) are never counted as recycles.
import test from 'ava';
import { EventEmitter } from 'node:events';
import { createHistory } from '../../../src/report/history/history.js';
import { EVENTS } from '../../../src/constants.js';

function stream() {
  const events = new EventEmitter();
  let time = 0;
  const emit = (fields) => events.emit('event', fields, { level: 'info', time: ++time });
  return { events, emit };
}

test('recycles counted per reason and per slot from worker.exit; a stop is not a recycle', (t) => {
  const { events, emit } = stream();
  const h = createHistory(events, 2);
  emit({ event: EVENTS.WORKER_RECYCLE, slot: 0, pid: 10, reason: 'rss', value: 3, limit: 2 });
  emit({ event: EVENTS.WORKER_EXIT, slot: 0, pid: 10, planned: true, reason: 'rss' });
  emit({ event: EVENTS.WORKER_EXIT, slot: 1, pid: 11, planned: true, reason: 'manual' });
  emit({ event: EVENTS.WORKER_EXIT, slot: 0, pid: 12, planned: true }); // a stop
  emit({ event: EVENTS.WORKER_EXIT, slot: 1, pid: 13, planned: false, signal: 'SIGKILL' }); // a crash
  emit({ event: EVENTS.WORKER_RESTART, slot: 1, delayMs: 100 });
  t.deepEqual(h.counters(), { recycles: { rss: 1, manual: 1 }, restarts: 1 });
  t.deepEqual(h.slot(0), { recycles: 1, restarts: 0 });
  t.deepEqual(h.slot(1), { recycles: 1, restarts: 1 });
  t.is(h.recentRecycles().length, 1);
  t.like(h.recentRecycles()[0], { time: 1, slot: 0, reason: 'rss' });
});

test('recent recycles are bounded and listening stops on close', (t) => {
  const { events, emit } = stream();
  const h = createHistory(events, 1);
  for (let i = 0; i < 50; i++) emit({ event: EVENTS.WORKER_RECYCLE, slot: 0, pid: i, reason: 'leak' });
  t.is(h.recentRecycles(100).length, 20);
  t.is(h.recentRecycles().at(-1).pid, 49);
  h.close();
  emit({ event: EVENTS.WORKER_RECYCLE, slot: 0, pid: 99, reason: 'leak' });
  t.is(h.recentRecycles().at(-1).pid, 49);
});
