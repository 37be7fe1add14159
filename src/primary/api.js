// The supervisor's one surface: what the control socket, the status screen's keys and the public
// API ask of a running supervisor. Each method takes plain arguments and returns plain data; the
// parts behind it come from the composition root (supervisor.js), so nothing here reaches through
// the supervisor's fields.
import { historyDocument } from '../report/history/history-doc.js';

/**
 * @typedef {object} SupervisorApi
 * @property {() => import('../types.js').Snapshot} status  one row per slot, as the last tick judged it
 * @property {(args?: object) => object} history  the slot history document (`nodesup history --json`)
 * @property {(args: {slot: number|string, heapSnapshot?: string, profile?: string}) => Promise<object>} inspect  one worker in detail
 *   (profile: write its sampled sites to that file as pprof, or .heapprofile)
 * @property {(args: {slot: number|string}) => Promise<{slot:number, reason:string, result:string}>} recycle
 * @property {(args?: {onSlot?: (r: {slot:number, reason:string, result:string}) => void}) => Promise<{reloaded:number, results:object[]}>} reload
 *   every slot in turn; onSlot hears each slot as it finishes
 * @property {() => {stopping: true}} stop  drain every worker and stop
 */

/**
 * @param {object} o
 * @param {{snapshot: () => object}} o.readModel
 * @param {object|null} o.slotHistory
 * @param {(slot: number|string, opts: {heapSnapshot?: string, profile?: string}) => Promise<object>} o.inspect
 * @param {import('./recycle/manual-recycles.js').ManualRecycles} o.manual
 * @param {() => void} o.stop
 * @param {() => import('../types.js').Config} o.config
 * @param {() => number} o.now
 * @returns {SupervisorApi}
 */
export function supervisorApi({ readModel, slotHistory, inspect, manual, stop, config, now }) {
  return {
    status: () => readModel.snapshot(),
    history: (args = {}) => historyDocument({ slotHistory, config: config(), now: now(), workers: config().workers }, args),
    inspect: ({ slot, heapSnapshot, profile } = {}) => inspect(slot, { heapSnapshot, profile }),
    recycle: ({ slot } = {}) => manual.recycleSlot(slot),
    reload: ({ onSlot } = {}) => manual.reload({ onSlot }),
    stop: () => {
      stop();
      return { stopping: true };
    },
  };
}
