// A new worker count from a config reload: more slots are forked at once; fewer drain the highest
// slots, which are then forgotten (no restart is pending for them).
import { RETIRE, SPAWN_CAUSES } from '../../constants.js';

/**
 * @param {{pool: import('./pool.js').Pool, recycler: import('../recycle/recycler.js').Recycler,
 *   restarts: import('./crash-restarts.js').CrashRestarts, now: () => number, onError: (err:Error, slot:number) => void}} parts
 * @param {number} to  the new number of slots
 */
export function resizeSlots({ pool, recycler, restarts, now, onError }, to) {
  const from = pool.slots.length;
  pool.resize(to);
  for (let slot = from; slot < to; slot++) pool.spawn(slot, SPAWN_CAUSES.INITIAL);
  for (let slot = to; slot < from; slot++) {
    restarts.forget(slot);
    for (const rec of pool.records().filter((x) => x.slot === slot)) {
      recycler.retire(rec, { reason: RETIRE.STOP, decidedAt: now() }).catch((err) => onError(err, slot));
    }
  }
}
