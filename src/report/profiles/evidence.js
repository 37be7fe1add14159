// Which events leave a profile behind, and the evidence each one gives: a named heap or external
// leak (leak.warning), and every memory recycle (worker.recycle for rss, heap, native, total-rss,
// or a leak), with the sites the event names and what the worker's samplers hold as live when it
// was asked. Pure.
import { EVENTS, LEAK_KINDS, MEMORY_REASONS, REASONS } from '../../constants.js';

// Sampling intervals of the two samplers (worker/sites/heap-profiler.js, buffer-sampler.js): the
// profile's period. Spelled here, not imported: the report side reads no worker code.
const PERIOD = Object.freeze({ heap: 32 * 1024, external: 128 * 1024 });
const PROFILED_KINDS = new Set([LEAK_KINDS.HEAP, LEAK_KINDS.EXTERNAL]);

/**
 * What a profile of `ev` would say, before the worker was asked: {kind, reason, slot, pid, named},
 * or null when the event leaves no profile.
 * @param {object} ev  the event's fields
 */
export function profileTrigger(ev) {
  if (!ev || ev.slot == null) return null;
  if (ev.event === EVENTS.LEAK_WARNING) {
    if (!PROFILED_KINDS.has(ev.kind)) return null;
    return { kind: ev.kind, reason: REASONS.LEAK, slot: ev.slot, pid: ev.pid ?? null, named: ev.sites ?? [] };
  }
  if (ev.event === EVENTS.WORKER_RECYCLE && (MEMORY_REASONS.has(ev.reason) || ev.reason === REASONS.LEAK)) {
    // A leak recycle names its own sites; a limit's recycle, what the worker retained.
    const named = ev.sites?.length ? ev.sites : ev.retained?.sites ?? [];
    const kind = ev.kind ?? ev.retained?.kind ?? LEAK_KINDS.HEAP;
    return { kind, reason: ev.reason, slot: ev.slot, pid: ev.pid ?? null, named };
  }
  return null;
}

/**
 * The evidence to encode: the trigger, and the worker's live read ({profile, buffers}, either null).
 * External memory is the Buffer sampler's; anything else the heap profiler's, which is what a
 * memory recycle's `retained` sites come from too.
 * @returns {import('./pprof.js').Evidence}
 */
export function evidenceOf(trigger, read, { name, at, comments = [] }) {
  const buffers = trigger.kind === LEAK_KINDS.EXTERNAL && read?.buffers?.sites?.length ? read.buffers : null;
  const live = buffers ?? (read?.profile?.sites ? read.profile : null);
  return {
    kind: trigger.kind, reason: trigger.reason, slot: trigger.slot, pid: trigger.pid, name, at,
    named: trigger.named ?? [], live, period: buffers ? PERIOD.external : PERIOD.heap, comments,
  };
}

/** True when the evidence names anything: a profile of nothing is not written. */
export const hasSites = (e) => (e.named?.length ?? 0) > 0 || (e.live?.sites?.length ?? 0) > 0;
