// The one count of recycles, read by the status view (history.js) and the metrics alike, so the two
// never disagree. A recycle counts once, when its old worker is gone: at a planned worker.exit
// that carries a recycle reason, its own or the one its worker.recycle announced. A planned exit
// without a reason is a stop or a spare; an unplanned one is a crash; a recycle.failed forgets
// the announcement, so a recycle that a GC or a failed replacement cancelled never counts.
import { EVENTS, REASONS } from '../../constants.js';

// Announced recycles whose exit has not come yet; past this many the oldest is dropped.
const MAX_PENDING = 1024;

/** Count recycles from `events`; `onRecycle` listeners hear each counted one. */
export function createRecycleCounter(events) {
  const byReason = new Map(); // `${reason}\0${forced}` → count
  const perSlot = new Map();
  const pending = new Map(); // pid → reason
  const listeners = new Set();
  const onEvent = (fields) => {
    switch (fields?.event) {
      case EVENTS.WORKER_RECYCLE:
        if (fields.pid == null) return;
        if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value);
        pending.set(fields.pid, fields.reason);
        return;
      case EVENTS.RECYCLE_FAILED:
        pending.delete(fields.pid);
        return;
      case EVENTS.WORKER_EXIT: {
        const reason = fields.reason ?? pending.get(fields.pid) ?? null;
        pending.delete(fields.pid);
        if (!fields.planned || !reason) return;
        const forced = Boolean(fields.forced);
        const key = `${reason}\0${forced}`;
        byReason.set(key, (byReason.get(key) ?? 0) + 1);
        perSlot.set(fields.slot, (perSlot.get(fields.slot) ?? 0) + 1);
        const counted = { slot: fields.slot, pid: fields.pid, reason, forced, recycleMs: fields.recycleMs ?? null };
        for (const fn of listeners) fn(counted);
        return;
      }
      default:
    }
  };
  events.on('event', onEvent);
  return {
    /** Recycles per reason, every known reason present (0 before its first). */
    byReason() {
      const out = Object.fromEntries(Object.values(REASONS).map((r) => [r, 0]));
      for (const [key, n] of byReason) { const r = key.split('\0')[0]; out[r] = (out[r] ?? 0) + n; }
      return out;
    },
    /** [{reason, forced, count}] for every known reason and both forced values. */
    byReasonForced() {
      const reasons = new Set([...Object.values(REASONS), ...[...byReason.keys()].map((k) => k.split('\0')[0])]);
      return [...reasons].flatMap((reason) => [false, true].map((forced) => ({ reason, forced, count: byReason.get(`${reason}\0${forced}`) ?? 0 })));
    },
    /** Recycles of one slot. */
    slot: (n) => perSlot.get(n) ?? 0,
    /** Call fn({slot, pid, reason, forced, recycleMs}) at each counted recycle; returns an unsubscribe. */
    onRecycle(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    close() { events.off('event', onEvent); listeners.clear(); pending.clear(); },
  };
}
