// One recycle counter, read by the status view (history) and the metrics: fed the same events,
// they must say the same numbers, including the cases where the two used to count differently.
import test from 'ava';
import { EventEmitter } from 'node:events';
import { createHistory } from '../../../src/report/history/history.js';
import { createMetrics } from '../../../src/report/metrics/metrics.js';
import { EVENTS } from '../../../src/constants.js';

const fakeSnapshot = () => ({ now: 0, slots: [], limits: {}, cgroup: {} });

async function metricsCounts(metrics) {
  const out = {};
  for (const line of (await metrics.registry.metrics()).split('\n')) {
    const m = /^nodesup_recycles_total\{reason="([^"]+)",forced="(true|false)"\} (\d+)$/.exec(line);
    if (m && Number(m[3]) > 0) out[m[1]] = (out[m[1]] ?? 0) + Number(m[3]);
  }
  return out;
}

const EXIT = EVENTS.WORKER_EXIT;
const CASES = [
  ['a recycle whose exit carries its reason', [
    { event: EVENTS.WORKER_RECYCLE, slot: 0, pid: 1, reason: 'rss' },
    { event: EXIT, slot: 0, pid: 1, planned: true, forced: false, reason: 'rss' }], { rss: 1 }, [1, 0]],
  ['an exit without a reason after its worker.recycle (the reason announced is the one)', [
    { event: EVENTS.WORKER_RECYCLE, slot: 1, pid: 2, reason: 'leak' },
    { event: EXIT, slot: 1, pid: 2, planned: true, forced: true }], { leak: 1 }, [0, 1]],
  ['a recycle cancelled (recycle.failed), then a stop', [
    { event: EVENTS.WORKER_RECYCLE, slot: 0, pid: 3, reason: 'heap' },
    { event: EVENTS.RECYCLE_FAILED, slot: 0, pid: 3 },
    { event: EXIT, slot: 0, pid: 3, planned: true }], {}, [0, 0]],
  ['a worker that crashed while its recycle was announced is a crash, not a recycle', [
    { event: EVENTS.WORKER_RECYCLE, slot: 0, pid: 4, reason: 'rss' },
    { event: EXIT, slot: 0, pid: 4, planned: false, signal: 'SIGSEGV' }], {}, [0, 0]],
  ['a recycled worker the OOM killer ended mid-drain still completed its recycle', [
    { event: EXIT, slot: 1, pid: 5, planned: true, forced: false, reason: 'native', oomKill: true }], { native: 1 }, [0, 1]],
  ['a stop and a spare are not recycles', [
    { event: EXIT, slot: 0, pid: 6, planned: true },
    { event: EXIT, slot: 1, pid: 7, planned: true, forced: false }], {}, [0, 0]],
];

for (const [title, events, byReason, perSlot] of CASES) {
  test(`history and metrics agree: ${title}`, async (t) => {
    const stream = new EventEmitter();
    const history = createHistory(stream);
    const metrics = createMetrics({ getSnapshot: fakeSnapshot, events: stream, recycleCounter: history.recycles });
    // A second metrics registry with its own counter, as tests and the API may build one.
    const standalone = createMetrics({ getSnapshot: fakeSnapshot, events: stream });
    t.teardown(() => { metrics.close(); standalone.close(); history.close(); });
    for (const ev of events) stream.emit('event', ev, { level: 'info', time: 1 });
    t.deepEqual(history.counters().recycles, byReason, 'the status counters');
    t.deepEqual(await metricsCounts(metrics), byReason, 'the metrics reading the same counter');
    t.deepEqual(await metricsCounts(standalone), byReason, 'metrics counting on their own, by the same rule');
    t.deepEqual([history.slot(0).recycles, history.slot(1).recycles], perSlot, 'per slot');
  });
}
