// Loaded inside a nodesup primary, never by a bench: bench/lib/versus.js withFullSlotHistory()
// appends an import of this to a scratch copy's slot-history module. It takes that module's own
// limits and that checkout's own event names, so the old and the new checkout are each filled to
// their own limits.
import { EventEmitter } from 'node:events';

/**
 * Wrap createSlotHistory so that each slot's history is full from its first sample on. The history
 * listens to a private emitter: the filler's made-up samples and events reach it and nothing else
 * (the log, the metrics, the status read model see only what really happened). `self` is the
 * slot-history module's namespace, `constants` the checkout's src/constants.js; the defaults are
 * the limits when this was written, for a module that no longer exports them (the bench reads
 * back how full the history got, so a wrong default shows).
 */
export function fillingSlotHistory(create, self, constants) {
  return function createSlotHistory(events, opts = {}) {
    const pollInterval = opts.pollInterval ?? 1000;
    const own = new EventEmitter();
    const history = create(own, opts);
    const filled = new Set();
    const onSample = (x) => {
      if (x?.sample && Number.isInteger(x.slot) && Number.isFinite(x.sample.t) && !filled.has(x.slot)) {
        filled.add(x.slot);
        fill(own, x);
      }
      own.emit('sample', x);
    };
    const onEvent = (...args) => own.emit('event', ...args);
    events.on('sample', onSample);
    events.on('event', onEvent);
    const close = history.close;
    history.close = () => { events.off('sample', onSample); events.off('event', onEvent); return close?.(); };
    return history;

    // Older than the first real sample, so the real ones that follow push out the oldest as they would.
    function fill(to, { slot, pid, id, sample }) {
      const EVENTS = constants.EVENTS ?? {};
      const span = (self.COARSE_SPAN_MS ?? 6 * 3600_000) + (self.COARSE_MS ?? 30_000); // a bucket more: the coarse ring wraps
      const from = sample.t - span;
      // One object, its t moved: the history copies what it keeps, and 21 600 copies made here
      // would grow the primary's young generation and show in the footprint as the history's.
      const made = { ...sample };
      const x = { id, slot, pid, current: true, sample: made };
      for (let t = from; t < sample.t; t += pollInterval) { made.t = t; to.emit('sample', x); }
      const marks = self.MAX_MARKS ?? 600;
      const reason = constants.REASONS?.RSS ?? 'rss';
      for (let k = 0; k < marks; k++) {
        to.emit('event', { event: EVENTS.WORKER_RECYCLE ?? 'worker.recycle', slot, pid, reason, value: sample.rss ?? null, limit: sample.rss ?? null }, { level: 'info', time: from + (k * span) / marks });
      }
      // Leak warnings with three sites: the largest of the kept events, as bench/history-cost.js fills them.
      const notes = self.MAX_EVENTS ?? 100;
      const sites = [1, 2, 3].map((i) => ({ fn: `remember${i}`, file: 'lib/cache/remember.js', line: 10 * i, column: 5, bytesPerMin: 1_500_000, share: 0.3 }));
      for (let k = 0; k < notes; k++) {
        to.emit('event', { event: EVENTS.LEAK_WARNING ?? 'leak.warning', slot, pid, kind: 'heap', growthBytesPerSec: 35_000, projectedLimitInSec: 120, sites }, { level: 'warn', time: from + (k * span) / notes });
      }
    }
  };
}
