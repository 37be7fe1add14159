// What happened so far, kept for the status view and `status --json`: the recent recycles and the
// recycle and restart counts, per reason and per slot. A listener on the event stream; recycles
// are counted by recycle-counter.js, the same counter the metrics read.
import { EVENTS } from '../../constants.js';
import { createRecycleCounter } from './recycle-counter.js';

const RECENT = 20;

/** Start counting on `events`; returns the history and a way to stop listening. */
export function createHistory(events) {
  const recent = [];
  const recycles = createRecycleCounter(events);
  const restartsOf = new Map();
  let restarts = 0;
  const onEvent = (fields, { time }) => {
    switch (fields.event) {
      case EVENTS.WORKER_RECYCLE:
        recent.push({ time, ...fields });
        if (recent.length > RECENT) recent.shift();
        return;
      case EVENTS.WORKER_RESTART:
        restarts++;
        restartsOf.set(fields.slot, (restartsOf.get(fields.slot) ?? 0) + 1);
        return;
      default:
    }
  };
  events.on('event', onEvent);
  return {
    /** The one recycle counter: metrics read it too. */
    recycles,
    /** The newest recycles, oldest first. */
    recentRecycles: (n = 10) => recent.slice(-n),
    /** Recycles per reason (those seen) and restarts, as `status --json` shows them. */
    counters: () => ({ recycles: Object.fromEntries(Object.entries(recycles.byReason()).filter(([, n]) => n > 0)), restarts }),
    /** One slot's counts. */
    slot: (n) => ({ recycles: recycles.slot(n), restarts: restartsOf.get(n) ?? 0 }),
    close: () => { events.off('event', onEvent); recycles.close(); },
  };
}
