// What the control socket (and the --tui keys) can ask of a running supervisor.
import { inspectWorker } from '../primary/inspect.js';
import { historyDocument } from '../report/history/history-doc.js';

/** Handlers for startControlServer, bound to one supervisor. */
export function controlHandlers(sup) {
  return {
    status: () => sup.snapshot(),
    reload: () => sup.manual.reload(),
    recycle: ({ slot }) => sup.manual.recycleSlot(slot),
    inspect: ({ slot, heapSnapshot }) => inspectWorker({
      slots: sup.pool.slots, pool: sup.pool, config: sup.config, cgroupLimit: sup.cgroup.memoryLimit, now: sup.now,
      leakOf: (h) => sup.leakOf(h), pointsOf: (h) => sup.pointsOf(h),
    }, slot, { heapSnapshot }),
    history: (args) => historyDocument({ slotHistory: sup.slotHistory, config: sup.config, now: sup.now(), workers: sup.pool.slots.length }, args),
    stop: () => {
      if (!sup.stopping) sup.stop('control');
      return { stopping: true };
    },
  };
}
