// The supervisor's one surface: what the control socket, the status screen's keys and the public
// API ask of a running supervisor. Each method takes plain arguments and returns plain data; the
// parts behind it come from the composition root (supervisor.js), so nothing here reaches through
// the supervisor's fields.
// `reload` and `stop` take, beside their arguments, `{ progress }`: a function the control socket
// passes when its client asked to hear each step as it happens (a slot reloaded, a worker gone);
// without it they answer once, at the end. Each answers with what happened, not that it began.
import { EVENTS } from '../constants.js';
import { historyDocument } from '../report/history/history-doc.js';

/**
 * @typedef {object} SupervisorApi
 * @property {() => import('../types.js').Snapshot} status  one row per slot, as the last tick judged it
 * @property {(args?: object) => object} history  the slot history document (`nodesup history --json`)
 * @property {(args: {slot: number|string, heapSnapshot?: string, profile?: string}) => Promise<object>} inspect  one worker in detail
 *   (profile: write its sampled sites to that file as pprof, or .heapprofile)
 * @property {(args: {slot: number|string}) => Promise<import('./recycle/manual-recycles.js').SlotResult>} recycle
 * @property {(args?: {onSlot?: (r: object) => void, onStart?: (o: object) => void, by?: string}, o?: {progress?: Progress}) => Promise<object>} reload
 *   every slot in turn, stopping at the first failure; onSlot (or progress) hears each slot as it finishes
 * @property {(args?: object, o?: {progress?: Progress}) => Promise<{stopped: true, workers: object[], durationMs: number}>} stop
 *   drain every worker and stop; resolves once every worker is gone (a stop under way is joined)
 */

/** @typedef {(step: {type: string}) => void} Progress  one step of a long request, for a client that asked to hear them */

/**
 * @param {object} o
 * @param {{snapshot: () => object}} o.readModel
 * @param {object|null} o.slotHistory
 * @param {(slot: number|string, opts: {heapSnapshot?: string, profile?: string}) => Promise<object>} o.inspect
 * @param {import('./recycle/manual-recycles.js').ManualRecycles} o.manual
 * @param {() => Promise<void>} o.stop  begins the stop (or joins the one under way); resolves when it is complete
 * @param {() => number} o.liveWorkers  how many worker processes are alive now
 * @param {import('node:events').EventEmitter} o.events  the supervisor's event stream: a stop's exits are heard there
 * @param {() => import('../types.js').Config} o.config
 * @param {() => number} o.now
 * @returns {SupervisorApi}
 */
export function supervisorApi({ readModel, slotHistory, inspect, manual, stop, liveWorkers, events, config, now }) {
  return {
    status: () => readModel.snapshot(),
    history: (args = {}) => historyDocument({ slotHistory, config: config(), now: now(), workers: config().workers }, args),
    inspect: ({ slot, heapSnapshot, profile } = {}) => inspect(slot, { heapSnapshot, profile }),
    recycle: ({ slot } = {}) => manual.recycleSlot(slot),
    reload: ({ onSlot = null, onStart = null, by = 'control' } = {}, { progress = null } = {}) => manual.reload({
      by,
      onStart: (o) => { onStart?.(o); progress?.({ type: 'start', ...o }); },
      onSlot: (r) => { onSlot?.(r); progress?.({ type: 'slot', ...r }); },
    }),
    stop: async (_args = {}, { progress = null } = {}) => {
      const t0 = now();
      const workers = [];
      const onEvent = (f) => {
        if (f?.event !== EVENTS.WORKER_EXIT) return;
        const w = workerGone(f);
        workers.push(w);
        progress?.({ type: 'exit', ...w });
      };
      events.on('event', onEvent);
      try {
        progress?.({ type: 'start', workers: liveWorkers() });
        await stop();
      } finally {
        events.off('event', onEvent);
      }
      return { stopped: true, workers, durationMs: now() - t0 };
    },
  };
}

// A worker's exit during a stop, as the stop's reply tells it.
function workerGone(f) {
  return {
    slot: f.slot, pid: f.pid, drainMs: f.drainMs ?? null, forced: Boolean(f.forced), code: f.code ?? null, signal: f.signal ?? null,
    ...(f.heldBy ? { heldBy: f.heldBy } : {}),
  };
}
