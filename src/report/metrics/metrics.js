// Prometheus metrics. Per-slot gauges are filled lazily at scrape time from one snapshot, so the
// poll tick (the hot path) does no metrics work at all; counters follow the supervisor's events.
// Labelled by slot, never by pid: pids change on every recycle and would explode the series count.

import client from './prom.js';
import { STATES, EVENTS } from '../../constants.js';
import { createRecycleCounter } from '../history/recycle-counter.js';
import { OptionalGauge } from './optional-gauge.js';
import { addJudgementSeries } from './metrics-judgements.js';
import { addReloadCount } from './metrics-reloads.js';
import { addLeakSiteSeries } from './metrics-sites.js';

export { startMetricsServer } from './metrics-server.js';

const { Registry, Gauge, Counter, Histogram, collectDefaultMetrics } = client;

// A recycle's duration spans the replacement's startup (readyTimeout, 30 s by default) and the
// drain (killTimeout, 10 s): 0.1 s to a minute, finer where healthy recycles land.
const RECYCLE_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 45, 60];

// Per-slot series: `field`, a Sample field (src/sample/fields.js) of the slot's last sample, over
// `divisor` (ms to seconds); or `value(slot, now)`, what is not a field. A null value omits the slot's series:
// unknown is not zero.
export const SLOT_GAUGES = Object.freeze([
  { name: 'rss_bytes', help: 'Resident memory of the worker and all its descendants.', field: 'treeRss' },
  { name: 'pss_bytes', help: 'Proportional set size of the worker and all its descendants.', field: 'treePss' },
  { name: 'heap_used_bytes', help: 'V8 heap used.', field: 'heapUsed' },
  { name: 'heap_total_bytes', help: 'V8 heap committed.', field: 'heapTotal' },
  { name: 'heap_limit_bytes', help: "V8's heap size limit.", field: 'heapLimit' },
  { name: 'external_bytes', help: 'Memory of C++ objects bound to JS objects, array buffers included.', field: 'external' },
  { name: 'array_buffers_bytes', help: 'Memory of ArrayBuffers and SharedArrayBuffers.', field: 'arrayBuffers' },
  { name: 'native_bytes', help: 'RSS outside the V8 heap and external memory (rss - heapTotal - external).', field: 'native' },
  { name: 'children_rss_bytes', help: "Resident memory of the worker's descendant processes.", field: 'childrenRss' },
  { name: 'rss_growth_bytes_per_second', help: 'Trend of resident memory over the leak window.', value: (s) => s.trend?.rssPerSec ?? null },
  { name: 'heap_growth_bytes_per_second', help: 'Trend of the post-GC heap baseline over the leak window.', value: (s) => s.trend?.heapPerSec ?? null },
  { name: 'event_loop_utilization', help: 'Event loop utilization since the previous poll, 0..1.', field: 'elu' },
  { name: 'event_loop_delay_p99_seconds', help: '99th percentile of event loop delay.', field: 'delayP99', divisor: 1000 },
  { name: 'open_fds', help: 'Open file descriptors of the worker process.', field: 'fds' },
  { name: 'active_handles', help: 'Active libuv handles and resources.', field: 'handles' },
  { name: 'uptime_seconds', help: 'Seconds since the worker was spawned.', value: (s, now) => (s.startedAt == null ? null : (now - s.startedAt) / 1000) },
].map(Object.freeze));
// Cumulative values read from the worker: counters, which reset when the slot's worker is replaced
// (Prometheus' rate() handles resets), hence type counter rather than a gauge ending in _total.
export const SLOT_COUNTERS = Object.freeze([
  { name: 'gc_seconds_total', help: 'GC pause time of the current worker in this slot.', field: 'gcMs', divisor: 1000 },
  { name: 'requests_total', help: 'Requests served by the current worker in this slot.', field: 'requests' },
].map(Object.freeze));
const LIMIT_KINDS = [['rss', 'rss'], ['heap', 'heapUsed'], ['native', 'native']];

// What a slot series reads of a slot.
function valueOf({ field, divisor = 1, value }) {
  if (value) return value;
  return (s) => {
    const v = s.last ? s.last[field] ?? null : null;
    return v === null ? null : v / divisor;
  };
}

/**
 * A registry of nodesup metrics, fed by snapshots at scrape time and by supervisor events.
 * `recycleCounter`: the supervisor's one recycle count (history.recycles), which the status view
 * reads too; without one, metrics count on `events` by the same rule.
 */
export function createMetrics({ getSnapshot, events, name = null, recycleCounter = null }) {
  const registry = new Registry();
  addPrimaryMetrics(registry);
  const snap = perScrape(getSnapshot);
  const slotsOf = () => snap().slots ?? [];
  addSlotSeries(registry, snap);
  addLeakSeries(registry, slotsOf);
  // Which code leaks, by site across this supervisor's workers: bounded, for a fleet's topk.
  const sites = addLeakSiteSeries(registry, snap, events);
  addSupervisorSeries(registry, snap, name);
  const recycles = addRecycleCount(registry, { events, recycleCounter });
  const exits = addExitSeries(registry, slotsOf, events);
  const reloads = addReloadCount(registry, events);
  const duration = addRecycleDuration(registry, recycles.counter);
  // Leaks named per slot and the over-commit advice, for the alerting rules in examples/prometheus/.
  const judgements = addJudgementSeries({ registry, events, slots: () => slotsOf().map((s) => String(s.slot)) });
  return {
    registry,
    /** Stop listening to events and drop every metric. */
    close() {
      exits.close();
      reloads.close();
      judgements.close();
      sites.close();
      duration.close();
      recycles.close();
      registry.clear();
    },
  };
}

const live = (s) => s.state !== STATES.EXITED; // a dead worker's last sample is history, not a value

function addPrimaryMetrics(registry) {
  collectDefaultMetrics({ register: registry, prefix: 'nodesup_primary_' });
  // prom-client's nodejs_active_{handles,requests,resources}_total are gauges with a counter's
  // suffix, which promtool rejects; each is only the sum of its labelled sibling, so drop them.
  for (const m of registry.getMetricsAsArray()) {
    if (m.name.endsWith('_total') && m.type !== 'counter') registry.removeSingleMetric(m.name);
  }
}

// One snapshot per scrape: prom-client calls every collect() synchronously within one turn of
// registry.metrics(), so a cache cleared on the next microtask is shared by exactly one scrape.
function perScrape(getSnapshot) {
  let cached = null;
  return () => {
    if (!cached) {
      try { cached = { value: getSnapshot() }; } catch (error) { cached = { error }; }
      queueMicrotask(() => { cached = null; });
    }
    if (cached.error) throw cached.error;
    return cached.value;
  };
}

// The per-slot gauges and counters of SLOT_GAUGES and SLOT_COUNTERS, and each slot's limits.
function addSlotSeries(registry, snap) {
  const perSlot = (metric, value, put) => {
    const sn = snap();
    metric.reset();
    for (const s of sn.slots ?? []) {
      const v = live(s) ? value(s, sn.now) : null;
      if (v !== null && Number.isFinite(v)) put({ slot: String(s.slot) }, v);
    }
  };
  for (const g of SLOT_GAUGES) {
    const value = valueOf(g);
    new Gauge({ name: `nodesup_worker_${g.name}`, help: g.help, labelNames: ['slot'], registers: [registry], collect() { perSlot(this, value, (l, v) => this.set(l, v)); } });
  }
  for (const c of SLOT_COUNTERS) {
    const value = valueOf(c);
    new Counter({
      name: `nodesup_worker_${c.name}`, help: c.help, labelNames: ['slot'], registers: [registry],
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
}

// The leak named in each worker, as the events and inspect name it: bytes/s by kind for memory,
// resources/s by type for handles (the sockets and timers of docs/incidents.md, incident 5).
function addLeakSeries(registry, slotsOf) {
  new Gauge({
    name: 'nodesup_worker_leak_bytes_per_second', help: 'Growth of the leak named in the worker (heap after full GC, or the window trend), by kind.',
    labelNames: ['slot', 'kind'], registers: [registry],
    collect() {
      this.reset();
      for (const s of slotsOf()) {
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
      for (const s of slotsOf()) {
        const L = live(s) ? s.leak : null;
        if (L?.kind === 'handles') for (const x of L.types ?? []) this.set({ slot: String(s.slot), type: x.type }, x.perSec);
      }
    },
  });
}

// Workers by state, the cgroup's memory, and who this supervisor is.
function addSupervisorSeries(registry, snap, name) {
  new Gauge({
    name: 'nodesup_workers', help: 'Workers by lifecycle state.', labelNames: ['state'], registers: [registry],
    collect() {
      const counts = Object.fromEntries(Object.values(STATES).map((st) => [st, 0]));
      // A slot's row and the workers riding along it (a replacement starting, an old one draining).
      for (const s of snap().slots ?? []) for (const w of [s, ...(s.others ?? [])]) if (w.state in counts) counts[w.state]++;
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
}

// Read from the one counter at scrape time; every reason's series exists from the start, so
// increase() sees the first recycle too.
function addRecycleCount(registry, { events, recycleCounter }) {
  const counter = recycleCounter ?? (events ? createRecycleCounter(events) : null);
  const own = !recycleCounter && counter;
  new Counter({
    name: 'nodesup_recycles_total', help: 'Completed recycles (old worker gone) by reason, and whether it had to be killed.',
    labelNames: ['reason', 'forced'], registers: [registry],
    collect() {
      this.reset();
      for (const { reason, forced, count } of counter?.byReasonForced() ?? []) this.inc({ reason, forced: String(forced) }, count);
    },
  });
  return { counter, close: () => { if (own) own.close(); } };
}

// Restarts, crashes and OOM kills per slot, counted from the supervisor's events.
function addExitSeries(registry, slotsOf, events) {
  const restarts = new Counter({ name: 'nodesup_restarts_total', help: 'Restarts after a crash.', labelNames: ['slot'], registers: [registry], collect() {
    for (const s of slotsOf()) this.inc({ slot: String(s.slot) }, 0); // every slot's series exists from the start
  } });
  const crashes = new Counter({ name: 'nodesup_worker_crashes_total', help: 'Unplanned worker exits.', labelNames: ['slot', 'signal'], registers: [registry] });
  // The kernel's OOM killer, told apart from other SIGKILLs by the cgroup's oom_kill count: the one
  // crash a memory limit in nodesup should have prevented.
  const oomKills = new Counter({ name: 'nodesup_worker_oom_kills_total', help: 'Workers killed by the kernel OOM killer.', labelNames: ['slot'], registers: [registry], collect() {
    for (const s of slotsOf()) this.inc({ slot: String(s.slot) }, 0);
  } });
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
  const onEvent = (ev) => {
    // A metrics bug must never break the supervisor that emitted the event.
    try { handle(ev); } catch { /* ignore */ }
  };
  events?.on('event', onEvent);
  return { close: () => events?.off('event', onEvent) };
}

function addRecycleDuration(registry, counter) {
  const duration = new Histogram({
    name: 'nodesup_recycle_duration_seconds', help: 'From the recycle decision to the old worker gone.',
    buckets: RECYCLE_BUCKETS, registers: [registry],
  });
  const off = counter?.onRecycle(({ recycleMs }) => {
    if (typeof recycleMs === 'number') duration.observe(recycleMs / 1000);
  });
  return { close: () => off?.() };
}
