// The supervisor's judgements as series, for alerting (examples/prometheus/): every leak named, per
// slot and kind, and the over-commit advice. Both come from the event stream. A leak's gauge lives
// as long as its worker, and a leak found over a whole window is recycled at once, so a scrape can
// miss it: the counter outlives the worker and an alert sees every leak.
import client from './prom.js';
import { EVENTS, REASONS, LEAK_KINDS } from '../../constants.js';
import { OptionalGauge } from './optional-gauge.js';

// Workers already counted as leaking, until they exit; a cap in case an exit is never seen.
const MAX_NAMED = 1024;
// Config keys that change what the workers may need together: after a reload that changes one, the
// over-commit check runs again and says so if the workers still do not fit.
const FIT_KEYS = new Set(['workers', 'limits', 'nodeArgs', 'env']);

/**
 * Register the judgement series on `registry` and follow `events`.
 * @param {{registry: client.Registry, events?: import('node:events').EventEmitter, slots: () => string[]}} o
 *   slots: the slot labels of this scrape, so that each series exists (at 0) before its first count
 * @returns {{close(): void}}
 */
export function addJudgementSeries({ registry, events, slots }) {
  const leaks = new client.Counter({
    name: 'nodesup_worker_leaks_total',
    help: 'Workers found leaking in this slot, by kind: counted once per worker, at its first leak.warning or its recycle for a leak.',
    labelNames: ['slot', 'kind'], registers: [registry],
    collect() {
      // Every slot × kind from the start, so that increase() sees the first leak too.
      for (const slot of slots()) for (const kind of Object.values(LEAK_KINDS)) this.inc({ slot, kind }, 0);
    },
  });
  let need = null;
  new OptionalGauge({
    name: 'nodesup_overcommit_need_bytes',
    help: "What the workers may take together when it is more than the container's memory limit (advice overcommit): workers × limits.rss, or × (V8 heap limit + native). Absent while they fit.",
    registers: [registry], read: () => need,
  });

  const named = new Set();
  const leak = (ev) => {
    if (ev.pid == null || ev.slot == null || !ev.kind || named.has(ev.pid)) return;
    if (named.size >= MAX_NAMED) named.delete(named.values().next().value);
    named.add(ev.pid);
    leaks.inc({ slot: String(ev.slot), kind: String(ev.kind) });
  };
  const handle = (ev) => {
    switch (ev?.event) {
      case EVENTS.LEAK_WARNING:
        return leak(ev);
      case EVENTS.WORKER_RECYCLE:
        if (ev.reason === REASONS.LEAK) leak(ev);
        return;
      case EVENTS.WORKER_EXIT:
        named.delete(ev.pid);
        return;
      case EVENTS.ADVICE:
        if (ev.code === 'overcommit' && Number.isFinite(ev.need)) need = ev.need;
        return;
      case EVENTS.CONFIG_RELOAD:
        if ((ev.changed ?? []).some((k) => FIT_KEYS.has(k))) need = null;
        return;
      default:
    }
  };
  const onEvent = (ev) => {
    // A metrics bug must never break the supervisor that emitted the event.
    try { handle(ev); } catch { /* ignore */ }
  };
  events?.on('event', onEvent);
  return {
    close() {
      events?.off('event', onEvent);
      named.clear();
    },
  };
}
