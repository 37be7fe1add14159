// The report side's picture, fed as the supervisor feeds it: records announcing their changes and
// samples, the tick announcing its judgements. Plain emitters, no supervisor.
import test from 'ava';
import { EventEmitter } from 'node:events';
import { createReadModel } from '../../src/report/read-model.js';
import { createHistory } from '../../src/report/history/history.js';

const MiB = 1024 * 1024;

function world(workers = 2) {
  const records = new EventEmitter();
  const events = new EventEmitter();
  let now = 10_000;
  const model = createReadModel({ workers: records, events, history: createHistory(events), run: { name: 'api', startedAt: 0, pid: 1 }, now: () => now });
  events.emit('settings', { config: { workers, script: '/srv/app.js', pollInterval: 1000, limits: { rss: null }, env: { SECRET: 'x' } }, totalLimit: null, cgroupLimit: null });
  const view = (id, slot, state, current, startedAt = 1000) => records.emit('changed', { id, slot, pid: 100 + id, state, startedAt, readyAt: state === 'ready' ? startedAt + 500 : null, retiring: null, current });
  const sample = (id, rss) => records.emit('sample', { id, sample: { t: now, rss, treeRss: rss } });
  return { model, records, events, view, sample, at: (t) => { now = t; } };
}

test('one row per slot: the serving worker, the others riding along; env values stay private', (t) => {
  const w = world();
  w.view(1, 0, 'ready', true);
  w.view(2, 1, 'ready', true);
  w.view(3, 1, 'spawning', false, 9000);
  const snap = w.model.snapshot();
  t.deepEqual(snap.slots.map((r) => [r.slot, r.pid, r.others.map((o) => [o.pid, o.state])]), [[0, 101, []], [1, 102, [[103, 'spawning']]]]);
  t.deepEqual(snap.config.env, ['SECRET']);
  t.is(snap.slots[1].uptimeMs, 9000);
});

test('a promotion moves the row to the replacement; an exit takes a worker out', (t) => {
  const w = world(1);
  w.view(1, 0, 'ready', true);
  w.view(2, 0, 'ready', true);
  w.view(1, 0, 'draining', false);
  t.deepEqual(w.model.snapshot().slots.map((r) => [r.pid, r.others.map((o) => [o.pid, o.state])]), [[102, [[101, 'draining']]]]);
  w.view(1, 0, 'exited', false);
  t.deepEqual(w.model.snapshot().slots[0].others, []);
});

test('a slot without a live worker is an empty row, not a missing one', (t) => {
  const w = world(2);
  w.view(1, 0, 'ready', true);
  const row = w.model.snapshot().slots[1];
  t.like(row, { slot: 1, pid: null, state: 'exited', leak: null, others: [] });
});

test('the judgement a tick announced is what the row shows, until the next tick says otherwise', (t) => {
  const w = world(1);
  w.view(1, 0, 'ready', true);
  const judged = { at: 9000, trend: { rssPerSec: 1000, heapPerSec: null, rssLimitInSec: null }, gcShareLastMinute: 0.02, advice: [{ code: 'loop-delay' }] };
  w.events.emit('judged', [{ id: 1, judged, leak: { kind: 'heap', growthBytesPerSec: 5000 }, points: 3, profiler: null }]);
  const row = w.model.snapshot().slots[0];
  t.is(row.trend, judged.trend);
  t.like(row, { judgedAt: 9000, gcShareLastMinute: 0.02, leak: { kind: 'heap', growthBytesPerSec: 5000 } });
  t.deepEqual(w.model.judgementOf(1), { judged, leak: row.leak, points: 3, profiler: null });
  t.is(w.model.judgementOf(7), null);
});

test('samples: the last one, and a worker\'s memory for its sparkline, at most 60 points', (t) => {
  const w = world(1);
  w.view(1, 0, 'ready', true);
  for (let i = 1; i <= 70; i++) w.sample(1, i * MiB);
  const row = w.model.snapshot().slots[0];
  t.is(row.last.rss, 70 * MiB);
  t.is(row.history.length, 60);
  t.is(row.history.at(-1), 70 * MiB);
  w.sample(9, MiB); // a worker the model never heard of: nothing to keep
  t.is(w.model.snapshot().slots.length, 1);
});

test('poll durations and the stop are heard on the stream', (t) => {
  const w = world(1);
  w.events.emit('poll', { ms: 4 });
  w.events.emit('poll', { ms: 6, group: 32 });
  w.events.emit('stopping');
  const snap = w.model.snapshot();
  t.like(snap.poll, { count: 2, lastMs: 6, group: 32 });
  t.true(snap.stopping);
  w.model.close();
  w.events.emit('poll', { ms: 8 });
  t.is(w.model.snapshot().poll.count, 2, 'closed: no longer listening');
});

test('anyServing: true while a slot\'s current worker is ready, as /readyz answers', (t) => {
  const w = world(2);
  t.false(w.model.anyServing());
  w.view(1, 0, 'spawning', true);
  t.false(w.model.anyServing(), 'spawning serves no one yet');
  w.view(1, 0, 'ready', true);
  t.true(w.model.anyServing());
  w.view(2, 0, 'ready', true);
  w.view(1, 0, 'draining', false);
  t.true(w.model.anyServing());
  w.view(2, 0, 'exited', false);
  t.false(w.model.anyServing());
});

test('what held a slot\'s leak, from its drained worker\'s snapshot: kept for the slot across its workers; a refusal keeps the last one', (t) => {
  const w = world(1);
  const held = [{ bytes: 40 * MiB, share: 0.93, count: 12004, type: 'IncomingMessage', path: ['(module) app.js', 'recentRequests', 'Array'], holder: { name: 'recentRequests', file: 'app.js', line: 11 } }];
  t.is(w.model.retainersOf(0), null);
  w.events.emit('event', { event: 'worker.retainers', slot: 0, pid: 4242, taken: true, held }, { level: 'info', time: 9000 });
  t.deepEqual(w.model.retainersOf(0), { pid: 4242, at: 9000, held });
  w.events.emit('event', { event: 'worker.retainers', slot: 0, pid: 4300, taken: false, why: 'memory' }, { level: 'warn', time: 9500 });
  t.is(w.model.retainersOf(0).pid, 4242);
  t.is(w.model.snapshot().slots[0].retainers.held[0].holder.name, 'recentRequests');
});
