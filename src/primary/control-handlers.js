// What the control socket (and the --tui keys) can ask of a running supervisor.
import { inspectWorker } from './inspect.js';

/** Handlers for startControlServer, bound to one supervisor. */
export function controlHandlers(sup) {
  return {
    status: () => sup.snapshot(),
    reload: () => sup.reload(),
    recycle: ({ slot }) => sup.recycleSlot(Number(slot)),
    inspect: ({ slot, heapSnapshot }) => inspectWorker(sup, Number(slot), { heapSnapshot }),
    stop: () => {
      if (!sup.stopping) sup.stop('control');
      return { stopping: true };
    },
  };
}
