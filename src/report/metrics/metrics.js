// Prometheus metrics. Per-slot gauges are filled lazily at scrape time from one snapshot, so the
// poll tick (the hot path) does no metrics work at all; counters follow the supervisor's events.
// Labelled by slot, never by pid: pids change on every recycle and would explode the series count.

import client from 'prom-client';
import { STATES, EVENTS } from '../../constants.js';
import { createRecycleCounter } from '../history/recycle-counter.js';
import { OptionalGauge } from './optional-gauge.js';
import { addJudgementSeries } from './metrics-judgements.js';

export { startMetricsServer } from './metrics-server.js';

const { Registry, Gauge, Counter, Histogram, collectDefaultMetrics } = client;

// A recycle's duration spans the replacement's startup (readyTimeout, 30 s by default) and the
// drain (killTimeout, 10 s): 0.1 s to a minute, finer where healthy recycles land.
const RECYCLE_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 45, 60];

const sample = (key) => (s) => (s.last ? s.last[key] ?? null : null);
const scaled = (key, by) => (s) => { const v = sample(key)(s); return v === null ? null : v / by; };

// name, help, value(slot, now); a null value omits the slot's series: unknown is not zero.
const SLOT_GAUGES = [
  ['rss_bytes', 'Resident memory of the worker and all its descendants.', sample('treeRss')],
  ['pss_bytes', 'Proportional set size of the worker and all its descendants.', sample('treePss')],
  ['heap_used_bytes', 'V8 heap used.', sample('heapUsed')],
  ['heap_total_bytes', 'V8 heap committed.', sample('heapTotal')],
  ['heap_limit_bytes', "V8's heap size limit.", sample('heapLimit')],
  ['external_bytes', 'Memory of C++ objects bound to JS objects, array buffers included.', sample('external')],
  ['array_buffers_bytes', 'Memory of ArrayBuffers and SharedArrayBuffers.', sample('arrayBuffers')],
  ['native_bytes', 'RSS outside the V8 heap and external memory (rss - heapTotal - external).', sample('native')],
  ['children_rss_bytes', "Resident memory of the worker's descendant processes.", sample('childrenRss')],
  ['rss_growth_bytes_per_second', 'Trend of resident memory over the leak window.', (s) => s.trend?.rssPerSec ?? null],
  ['heap_growth_bytes_per_second', 'Trend of the post-GC heap baseline over the leak window.', (s) => s.trend?.heapPerSec ?? null],
  ['event_loop_utilization', 'Event loop utilization since the previous poll, 0..1.', sample('elu')],
  ['event_loop_delay_p99_seconds', '99th percentile of event loop delay.', scaled('delayP99', 1000)],
  ['open_fds', 'Open file descriptors of the worker process.', sample('fds')],
  ['active_handles', 'Active libuv handles and resources.', sample('handles')],
  ['uptime_seconds', 'Seconds since the worker was spawned.', (s, now) => (s.startedAt == null ? null : (now - s.startedAt) / 1000)],
];
// Cumulative values read from the worker: counters, which reset when the slot's worker is replaced
// (Prometheus' rate() handles resets), hence type counter rather than a gauge ending in _total.
const SLOT_COUNTERS = [
  ['gc_seconds_total', 'GC pause time of the current worker in this slot.', scaled('gcMs', 1000)],
  ['requests_total', 'Requests served by the current worker in this slot.', sample('requests')],
];
const LIMIT_KINDS = [['rss', 'rss'], ['heap', 'heapUsed'], ['native', 'native']];

/**
 * A registry of nodesup metrics, fed by snapshots at scrape time and by supervisor events.
 * `recycleCounter`: the supervisor's one recycle count (history.recycles), which the status view
 * reads too; without one, metrics count on `events` by the same rule.
 */
export function createMetrics({ getSnapshot, events, name = null, recycleCounter = null }) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'nodesup_primary_' });
  // prom-client's nodejs_active_{handles,requests,resources}_total are gauges with a counter's
  // suffix, which promtool rejects; each is only the sum of its labelled sibling, so drop them.
  for (const m of registry.getMetricsAsArray()) {
    if (m.name.endsWith('_total') && m.type !== 'counter') registry.removeSingleMetric(m.name);
  }

  // One snapshot per scrape: prom-client calls every collect() synchronously within one turn of
  // registry.metrics(), so a cache cleared on the next microtask is shared by exactly one scrape.
  let cached = null;
  const snap = () => {
    if (!cached) {
      try { cached = { value: getSnapshot() }; } catch (error) { cached = { error }; }
      queueMicrotask(() => { cached = null; });
    }
    if (cached.error) throw cached.error;
    return cached.value;
  };
  const live = (s) => s.state !== STATES.EXITED; // a dead worker's last sample is history, not a value
  const perSlot = (metric, value, put) => {
    const sn = snap();
    metric.reset();
    for (const s of sn.slots ?? []) {
      const v = live(s) ? value(s, sn.now) : null;
      if (v !== null && Number.isFinite(v)) put({ slot: String(s.slot) }, v);
    }
  };

  for (const [n, help, value] of SLOT_GAUGES) {
    new Gauge({ name: `nodesup_worker_${n}`, help, labelNames: ['slot'], registers: [registry], collect() { perSlot(this, value, (l, v) => this.set(l, v)); } });
  }
  for (const [n, help, value] of SLOT_COUNTERS) {
    new Counter({
      name: `nodesup_worker_${n}`, help, labelNames: ['slot'], registers: [registry],
      collect() { perSlot(this, value, (l, v) => v >= 0 && this.inc(l, v)); },
    });
  }
  new Gauge({
    name: 'nodesup_worker_limit_bytes', help: 'Configured per-worker memory limit by kind.',
    labelNames: ['slot', 'kind'], registers: [registry],
    collect() {
      const sn = snap();
      this.reset();
      for (const s of sn.slots ?? []) for (const [kind, key] of LIMIT_KINDS) {
        const v = sn.limits?.[key];
        if (v != null) this.set({ slot: String(s.slot), kind }, v);
      }
    },
  });
  // The leak named in each worker, as the events and inspect name it: bytes/s by kind for memory,
  // resources/s by type for handles (the sockets and timers of docs/incidents.md, incident 5).
  new Gauge({
    name: 'nodesup_worker_leak_bytes_per_second', help: 'Growth of the leak named in the worker (heap after full GC, or the window trend), by kind.',
    labelNames: ['slot', 'kind'], registers: [registry],
    collect() {
      this.reset();
      for (const s of snap().slots ?? []) {
        const L = live(s) ? s.leak : null;
        if (L && L.kind !== 'handles' && Number.isFinite(L.growthBytesPerSec)) this.set({ slot: String(s.slot), kind: L.kind }, L.growthBytesPerSec);
      }
    },
  });
  new Gauge({
    name: 'nodesup_worker_handle_leak_per_second', help: 'Growth of active resources named as a leak in the worker, by resource type.',
    labelNames: ['slot', 'type'], registers: [registry],
    collect() {
      this.reset();
      for (const s of snap().slots ?? []) {
        const L = live(s) ? s.leak : null;
        if (L?.kind === 'handles') for (const x of L.types ?? []) this.set({ slot: String(s.slot), type: x.type }, x.perSec);
      }
    },
  });
  new Gauge({
    name: 'nodesup_workers', help: 'Workers by lifecycle state.', labelNames: ['state'], registers: [registry],
    collect() {
      const counts = Object.fromEntries(Object.values(STATES).map((st) => [st, 0]));
      for (const s of snap().slots ?? []) if (s.state in counts) counts[s.state]++;
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });
  for (const [n, key, help] of [['limit', 'limit', 'Memory limit of the cgroup nodesup runs in.'], ['usage', 'current', 'Memory usage of the cgroup.']]) {
    new OptionalGauge({ name: `nodesup_cgroup_memory_${n}_bytes`, help, registers: [registry], read: () => snap().cgroup?.[key] ?? null });
  }
  if (name != null) {
    // The name as an info metric rather than a label on every series: join on it when needed.
    new Gauge({ name: 'nodesup_info', help: 'Supervisor identity.', labelNames: ['name'], registers: [registry] }).set({ name: String(name) }, 1);
  }

  const counter = recycleCounter ?? (events ? createRecycleCounter(events) : null);
  const ownCounter = !recycleCounter && counter;
  // Read from the one counter at scrape time; every reason's series exists from the start, so
  // increase() sees the first recycle too.
  new Counter({
    name: 'nodesup_recycles_total', help: 'Completed recycles (old worker gone) by reason, and whether it had to be killed.',
    labelNames: ['reason', 'forced'], registers: [registry],
    collect() {
      this.reset();
      for (const { reason, forced, count } of counter?.byReasonForced() ?? []) this.inc({ reason, forced: String(forced) }, count);
    },
  });
  const restarts = new Counter({ name: 'nodesup_restarts_total', help: 'Restarts after a crash.', labelNames: ['slot'], registers: [registry], collect() {
    for (const s of snap().slots ?? []) this.inc({ slot: String(s.slot) }, 0); // every slot's series exists from the start
  } });
  const crashes = new Counter({ name: 'nodesup_worker_crashes_total', help: 'Unplanned worker exits.', labelNames: ['slot', 'signal'], registers: [registry] });
  // The kernel's OOM killer, told apart from other SIGKILLs by the cgroup's oom_kill count: the one
  // crash a memory limit in nodesup should have prevented.
  const oomKills = new Counter({ name: 'nodesup_worker_oom_kills_total', help: 'Workers killed by the kernel OOM killer.', labelNames: ['slot'], registers: [registry], collect() {
    for (const s of snap().slots ?? []) this.inc({ slot: String(s.slot) }, 0);
  } });
  const duration = new Histogram({
    name: 'nodesup_recycle_duration_seconds', help: 'From the recycle decision to the old worker gone.',
    buckets: RECYCLE_BUCKETS, registers: [registry],
  });

  // Leaks named per slot and the over-commit advice, for the alerting rules in examples/prometheus/.
  const judgements = addJudgementSeries({ registry, events, slots: () => (snap().slots ?? []).map((s) => String(s.slot)) });

  const offRecycle = counter?.onRecycle(({ recycleMs }) => {
    if (typeof recycleMs === 'number') duration.observe(recycleMs / 1000);
  });
  const onEvent = (ev) => {
    // A metrics bug must never break the supervisor that emitted the event.
    try { handle(ev); } catch { /* ignore */ }
  };
  const handle = (ev) => {
    switch (ev?.event) {
      case EVENTS.WORKER_EXIT:
        if (!ev.planned) crashes.inc({ slot: String(ev.slot), signal: ev.signal ?? 'none' });
        if (ev.oomKill) oomKills.inc({ slot: String(ev.slot) });
        return;
      case EVENTS.WORKER_RESTART:
        restarts.inc({ slot: String(ev.slot) });
        return;
      default:
    }
  };
  events?.on('event', onEvent);

  return {
    registry,
    /** Stop listening to events and drop every metric. */
    close() {
      events?.off('event', onEvent);
      judgements.close();
      offRecycle?.();
      if (ownCounter) ownCounter.close();
      registry.clear();
    },
  };
}
