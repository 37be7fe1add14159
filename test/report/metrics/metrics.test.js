import test from 'ava';
import net from 'node:net';
import { EventEmitter } from 'node:events';
import { spawnSync } from 'node:child_process';
import { createMetrics, startMetricsServer } from '../../../src/report/metrics/metrics.js';
import { NodesupError } from '../../../src/errors.js';
import { testWith } from '../../helpers/tools.js';
import { MiB, snapshot, slotView } from '../fake-snapshot.js';

const SLOT_GAUGES = [
  'rss_bytes', 'pss_bytes', 'heap_used_bytes', 'heap_total_bytes', 'heap_limit_bytes', 'external_bytes',
  'array_buffers_bytes', 'native_bytes', 'children_rss_bytes', 'rss_growth_bytes_per_second',
  'heap_growth_bytes_per_second', 'event_loop_utilization', 'event_loop_delay_p99_seconds', 'gc_seconds_total',
  'open_fds', 'active_handles', 'requests_total', 'uptime_seconds',
].map((n) => `nodesup_worker_${n}`);

// Slot 0 fully measured, slot 1 with probes that failed, slot 2 gone.
function fakeSnapshot() {
  return snapshot({
    slots: [
      slotView(0, { trend: { rssPerSec: 1000, heapPerSec: 250 }, last: { treeRss: 300 * MiB, elu: 0.5, delayP99: 25, gcMs: 1500, requests: 42 } }),
      slotView(1, { last: { treeRss: null, treePss: null, heapUsed: null, elu: null, fds: null, requests: null }, trend: { rssPerSec: null, heapPerSec: null } }),
      slotView(2, { state: 'exited', pid: null, startedAt: null, last: null }),
    ],
    cgroup: { limit: null, current: 900 * MiB },
  });
}

async function setup(t, { getSnapshot = fakeSnapshot, ready = true } = {}) {
  const events = new EventEmitter();
  const state = { ready };
  const metrics = createMetrics({ getSnapshot, events, name: 'api' });
  const server = await startMetricsServer({ metrics, host: '127.0.0.1', port: 0, isReady: () => state.ready });
  t.teardown(async () => { await server.close(); metrics.close(); });
  const get = async (path) => {
    const res = await fetch(`http://127.0.0.1:${server.address.port}${path}`);
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  };
  return { events, state, metrics, server, get };
}

const series = (body, name) => body.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
const value = (body, line) => {
  const found = body.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
};

test('GET /metrics: per-slot series labelled by slot, null values omitted, exited slots omitted', async (t) => {
  const { get } = await setup(t);
  const { status, type, body } = await get('/metrics');
  t.is(status, 200);
  t.regex(type, /^text\/plain; version=0\.0\.4/);
  for (const name of SLOT_GAUGES) {
    t.true(series(body, name).some((l) => l.includes('slot="0"')), `${name} for slot 0`);
    t.false(series(body, name).some((l) => l.includes('slot="2"')), `${name} omitted for the exited slot`);
    t.false(series(body, name).some((l) => /pid=/.test(l)), 'never a pid label');
  }
  t.is(value(body, 'nodesup_worker_rss_bytes{slot="0"}'), 300 * MiB);
  t.is(value(body, 'nodesup_worker_event_loop_delay_p99_seconds{slot="0"}'), 0.025);
  t.is(value(body, 'nodesup_worker_gc_seconds_total{slot="0"}'), 1.5);
  t.is(value(body, 'nodesup_worker_requests_total{slot="0"}'), 42);
  t.is(value(body, 'nodesup_worker_uptime_seconds{slot="0"}'), 3600);
  t.is(value(body, 'nodesup_worker_rss_growth_bytes_per_second{slot="0"}'), 1000);
  // Unknown is not zero: slot 1's failed probes have no series at all.
  for (const name of ['rss_bytes', 'pss_bytes', 'heap_used_bytes', 'event_loop_utilization', 'open_fds', 'requests_total', 'rss_growth_bytes_per_second']) {
    t.is(value(body, `nodesup_worker_${name}{slot="1"}`), undefined, name);
  }
  t.is(value(body, 'nodesup_worker_heap_total_bytes{slot="1"}'), 100 * MiB, 'what was measured is still there');
  t.is(value(body, 'nodesup_worker_limit_bytes{slot="0",kind="rss"}'), 512 * MiB);
  t.is(value(body, 'nodesup_worker_limit_bytes{slot="1",kind="heap"}'), 300 * MiB);
  t.is(value(body, 'nodesup_worker_limit_bytes{slot="2",kind="native"}'), 250 * MiB);
  for (const [state, n] of [['spawning', 0], ['ready', 2], ['draining', 0], ['killing', 0], ['exited', 1]]) {
    t.is(value(body, `nodesup_workers{state="${state}"}`), n, state);
  }
  t.is(value(body, 'nodesup_cgroup_memory_usage_bytes'), 900 * MiB);
  t.deepEqual(series(body, 'nodesup_cgroup_memory_limit_bytes'), [], 'no cgroup limit → no series, not 0');
  t.is(value(body, 'nodesup_info{name="api"}'), 1);
  t.true(series(body, 'nodesup_primary_process_resident_memory_bytes').length === 1, "the primary's own process metrics");
  for (const stat of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
    t.is(series(body, `nodesup_primary_nodejs_eventloop_lag_${stat}_seconds`).length, 1, `prom-client's eventloop lag ${stat}, under its name`);
  }
  t.is(value(body, 'nodesup_restarts_total{slot="2"}'), 0, 'restart series exist before the first restart');
  t.is(value(body, 'nodesup_recycles_total{reason="leak",forced="true"}'), 0, 'recycle series exist before the first recycle');
});

test('one getSnapshot call per scrape', async (t) => {
  let calls = 0;
  const { get } = await setup(t, { getSnapshot: () => { calls++; return fakeSnapshot(); } });
  await get('/metrics');
  t.is(calls, 1);
  await get('/metrics');
  t.is(calls, 2);
});

test('counters follow events: recycles counted at exit with reason and forced, crashes, restarts, durations', async (t) => {
  const { events, get } = await setup(t);
  const emit = (ev) => events.emit('event', ev);
  emit({ event: 'worker.recycle', slot: 0, pid: 4000, reason: 'rss', value: 600 * MiB, limit: 512 * MiB });
  emit({ event: 'worker.spawn', slot: 0, pid: 4100, cause: 'replace' });
  emit({ event: 'worker.exit', slot: 0, pid: 4000, code: 0, signal: null, planned: true, forced: false, recycleMs: 1500 });
  // The exit event's own reason wins; a forced kill is labelled as such.
  emit({ event: 'worker.recycle', slot: 1, pid: 4001, reason: 'leak' });
  emit({ event: 'worker.exit', slot: 1, pid: 4001, code: null, signal: 'SIGKILL', planned: true, forced: true, reason: 'leak', recycleMs: 12_000 });
  // A recycle that never completed is not counted; a planned exit without a reason is a shutdown.
  emit({ event: 'worker.recycle', slot: 2, pid: 4002, reason: 'heap' });
  emit({ event: 'recycle.failed', slot: 2, pid: 4002 });
  emit({ event: 'worker.exit', slot: 2, pid: 4002, code: 0, signal: null, planned: true, forced: false, recycleMs: null });
  // Crashes and restarts.
  emit({ event: 'worker.exit', slot: 1, pid: 4101, code: null, signal: 'SIGSEGV', planned: false, forced: false, recycleMs: null });
  emit({ event: 'worker.exit', slot: 1, pid: 4102, code: 1, signal: null, planned: false, forced: false, recycleMs: null });
  emit({ event: 'worker.exit', slot: 0, pid: 4103, code: null, signal: 'SIGKILL', planned: false, forced: false, oomKill: true });
  emit({ event: 'worker.restart', slot: 1, delayMs: 100, crashesInWindow: 1 });
  emit({ event: 'worker.restart', slot: 1, delayMs: 200, crashesInWindow: 2 });
  emit(null); // garbage must not throw into the supervisor
  emit({ event: 'worker.exit' });

  const { body } = await get('/metrics');
  t.is(value(body, 'nodesup_recycles_total{reason="rss",forced="false"}'), 1);
  t.is(value(body, 'nodesup_recycles_total{reason="leak",forced="true"}'), 1);
  t.is(value(body, 'nodesup_recycles_total{reason="heap",forced="false"}'), 0);
  t.is(value(body, 'nodesup_worker_crashes_total{slot="1",signal="SIGSEGV"}'), 1);
  t.is(value(body, 'nodesup_worker_crashes_total{slot="1",signal="none"}'), 1);
  t.is(value(body, 'nodesup_restarts_total{slot="1"}'), 2);
  t.is(value(body, 'nodesup_worker_oom_kills_total{slot="0"}'), 1, 'the kernel OOM kill, counted apart');
  t.is(value(body, 'nodesup_worker_oom_kills_total{slot="1"}'), 0, 'a SIGSEGV is a crash, not an OOM kill');
  t.is(value(body, 'nodesup_recycle_duration_seconds_count'), 2);
  t.is(value(body, 'nodesup_recycle_duration_seconds_sum'), 13.5);
  t.is(value(body, 'nodesup_recycle_duration_seconds_bucket{le="2"}'), 1);
  t.is(value(body, 'nodesup_recycle_duration_seconds_bucket{le="20"}'), 2);
});

test('leaks named: counted once per worker by slot and kind, from warnings and leak recycles; every slot × kind exists at 0', async (t) => {
  const { events, get } = await setup(t);
  const before = (await get('/metrics')).body;
  for (const slot of ['0', '1', '2']) for (const kind of ['heap', 'external', 'native', 'children', 'rss', 'handles']) {
    t.is(value(before, `nodesup_worker_leaks_total{slot="${slot}",kind="${kind}"}`), 0, `slot ${slot} ${kind} before any leak`);
  }
  const emit = (ev) => events.emit('event', ev);
  // Warned early, then recycled for the same leak: one leaking worker.
  emit({ event: 'leak.warning', slot: 0, pid: 4000, kind: 'heap', growthBytesPerSec: 5000 });
  emit({ event: 'leak.warning', slot: 0, pid: 4000, kind: 'heap', growthBytesPerSec: 5200 });
  emit({ event: 'worker.recycle', slot: 0, pid: 4000, reason: 'leak', kind: 'heap' });
  emit({ event: 'worker.exit', slot: 0, pid: 4000, planned: true, forced: false, reason: 'leak', recycleMs: 900 });
  // Its replacement leaks too, found over a whole window: recycled with no warning first.
  emit({ event: 'worker.recycle', slot: 0, pid: 4100, reason: 'leak', kind: 'heap' });
  emit({ event: 'leak.warning', slot: 1, pid: 4001, kind: 'handles', growthPerSec: 10 });
  // A memory recycle that is not a leak names none.
  emit({ event: 'worker.recycle', slot: 2, pid: 4002, reason: 'rss', value: 600 * MiB, limit: 512 * MiB });
  emit({ event: 'leak.warning', slot: 2, pid: null, kind: 'heap' });
  const { body } = await get('/metrics');
  t.is(value(body, 'nodesup_worker_leaks_total{slot="0",kind="heap"}'), 2);
  t.is(value(body, 'nodesup_worker_leaks_total{slot="1",kind="handles"}'), 1);
  t.is(value(body, 'nodesup_worker_leaks_total{slot="1",kind="heap"}'), 0);
  t.is(value(body, 'nodesup_worker_leaks_total{slot="2",kind="heap"}'), 0);
  t.is(value(body, 'nodesup_worker_leaks_total{slot="2",kind="rss"}'), 0, 'an rss recycle is not a leak of kind rss');
});

test('over-commit: absent until advised, the advice\'s need in bytes, cleared by a reload that changes what the workers need', async (t) => {
  const { events, get } = await setup(t);
  const need = async () => series((await get('/metrics')).body, 'nodesup_overcommit_need_bytes');
  t.deepEqual(await need(), [], 'no series before the check: unknown is not 0');
  events.emit('event', { event: 'worker.advice', slot: 0, pid: 4000, code: 'heap-near-limit' });
  t.deepEqual(await need(), [], 'other advice is not an over-commit');
  events.emit('event', { event: 'worker.advice', code: 'overcommit', need: 800 * MiB, limit: 512 * MiB });
  t.deepEqual(await need(), [`nodesup_overcommit_need_bytes ${800 * MiB}`]);
  events.emit('event', { event: 'config.reload', changed: ['pollInterval'], applied: 'live' });
  t.deepEqual(await need(), [`nodesup_overcommit_need_bytes ${800 * MiB}`], 'a reload that cannot change the fit keeps it');
  events.emit('event', { event: 'config.reload', changed: ['limits'], applied: 'live' });
  t.deepEqual(await need(), [], 'the check runs again after a limits change and advises again if still over');
  events.emit('event', { event: 'worker.advice', code: 'overcommit', need: 600 * MiB, limit: 512 * MiB });
  t.deepEqual(await need(), [`nodesup_overcommit_need_bytes ${600 * MiB}`]);
});

test('/healthz, /readyz in both states, 404, 405', async (t) => {
  const { get, state, server } = await setup(t, { ready: false });
  t.like(await get('/healthz'), { status: 200, body: 'ok' });
  t.like(await get('/readyz'), { status: 503, body: 'not ready' });
  state.ready = true;
  t.like(await get('/readyz'), { status: 200, body: 'ok' });
  t.is((await get('/nope')).status, 404);
  t.is((await get('/')).status, 404);
  t.is((await get('/metrics?x=1')).status, 200);
  const post = await fetch(`${server.url}/metrics`, { method: 'POST' });
  t.is(post.status, 405);
  t.is(post.headers.get('allow'), 'GET, HEAD');
});

test('a failing snapshot answers 500, and the next scrape works again', async (t) => {
  let fail = true;
  const { get } = await setup(t, { getSnapshot: () => { if (fail) throw new Error('boom'); return fakeSnapshot(); } });
  t.like(await get('/metrics'), { status: 500, body: 'metrics: boom' });
  fail = false;
  t.is((await get('/metrics')).status, 200);
});

testWith('promtool')('promtool check metrics accepts the exposition', async (t) => {
  const { events, get } = await setup(t);
  events.emit('event', { event: 'worker.exit', slot: 0, pid: 1, planned: false, signal: 'SIGKILL' });
  events.emit('event', { event: 'worker.exit', slot: 0, pid: 2, planned: true, forced: true, reason: 'rss', recycleMs: 900 });
  events.emit('event', { event: 'leak.warning', slot: 1, pid: 3, kind: 'heap' });
  events.emit('event', { event: 'worker.advice', code: 'overcommit', need: 800 * MiB, limit: 512 * MiB });
  const { body } = await get('/metrics');
  t.true(body.includes('nodesup_overcommit_need_bytes '), 'the label-less gauge is in what promtool checks');
  const run = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
  t.is(run.status, 0, `${run.stdout}${run.stderr}`);
});

test('bind failure rejects with a one-line NODESUP_ERR_BIND', async (t) => {
  const blocker = net.createServer();
  await new Promise((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => blocker.close());
  const { port } = blocker.address();
  const metrics = createMetrics({ getSnapshot: fakeSnapshot, events: new EventEmitter() });
  t.teardown(() => metrics.close());
  const err = await t.throwsAsync(startMetricsServer({ metrics, host: '127.0.0.1', port }), { instanceOf: NodesupError });
  t.is(err.code, 'NODESUP_ERR_BIND');
  t.is(err.message, `metrics: cannot listen on 127.0.0.1:${port}: EADDRINUSE (choose another with --metrics host:port, or --metrics false)`);
  t.false(err.message.includes('\n'));
});

test('close() lets go: no server, no listener, idempotent', async (t) => {
  const events = new EventEmitter();
  const metrics = createMetrics({ getSnapshot: fakeSnapshot, events });
  const server = await startMetricsServer({ metrics, host: '127.0.0.1', port: 0 });
  // A keep-alive connection left open by a client must not hold the server.
  const agent = await fetch(`${server.url}/healthz`, { keepalive: true });
  await agent.text();
  await Promise.all([server.close(), server.close()]);
  t.false(server.server.listening);
  metrics.close();
  t.is(events.listenerCount('event'), 0);
});
