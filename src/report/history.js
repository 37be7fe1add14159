// What happened so far, kept for the status view and `status --json`: the recent recycles and the
// recycle and restart counts, per reason and per slot. A listener on the event stream, and the
// one count of recycles: a worker exit counts when it ends a recycle, never when it ends a stop.
import { EVENTS } from '../constants.js';

const RECENT = 20;

/** Start counting on `events`; returns the history and a way to stop listening. */
export function createHistory(events, slots) {
  const recent = [];
  const byReason = {};
  const perSlot = Array.from({ length: slots }, () => ({ recycles: 0, restarts: 0 }));
  let restarts = 0;
  const slotOf = (n) => (perSlot[n] ??= { recycles: 0, restarts: 0 });
  const onEvent = (fields, { time }) => {
    switch (fields.event) {
      case EVENTS.WORKER_RECYCLE:
        recent.push({ time, ...fields });
        if (recent.length > RECENT) recent.shift();
        return;
      case EVENTS.WORKER_EXIT:
        if (!fields.planned || !fields.reason) return;
        byReason[fields.reason] = (byReason[fields.reason] ?? 0) + 1;
        slotOf(fields.slot).recycles++;
        return;
      case EVENTS.WORKER_RESTART:
        restarts++;
        slotOf(fields.slot).restarts++;
        return;
      default:
    }
  };
  events.on('event', onEvent);
  return {
    /** The newest recycles, oldest first. */
    recentRecycles: (n = 10) => recent.slice(-n),
    /** Recycles per reason and restarts, as `status --json` shows them. */
    counters: () => ({ recycles: { ...byReason }, restarts }),
    /** One slot's counts. */
    slot: (n) => ({ ...slotOf(n) }),
    close: () => events.off('event', onEvent),
  };
}
