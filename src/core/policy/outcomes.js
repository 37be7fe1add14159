// What the act step learned since the last tick, folded into the policy state before the next
// decision: the recycler and the heap prober report outcomes as data (this file's vocabulary),
// and only decide's state remembers them. Pure: the state in is never written.
import { newConfirmState } from '../leak/heap-confirm.js';
import { learnRecycle } from '../leak/warm-up.js';

/** The kinds of outcome the act step reports. */
export const OUTCOME = Object.freeze({
  /** a confirmation point of a worker's heap after a full GC: { id, point } */
  POINT: 'point',
  /** a full GC was run before a recycle of this worker: { id, at } */
  GC: 'gc',
  /** a predicted crossing of this worker did not come; its spare was retired: { id, at } */
  SPARE: 'spare',
  /** a replacement for this slot was not ready in time: the slot is held until { slot, until } */
  FAILED: 'failed',
  /** a worker of this slot was replaced for memory: { slot, at, reason, kind, bytesPerMin, sites } */
  RECYCLED: 'recycled',
});

// Memory recycles kept per slot: the slot's story across its workers (core/leak/retained.js sameRateStreak).
const KEEP_RECYCLES = 8;

// Points kept per worker: a verdict reads eight, the rest are history for inspect.
const KEEP_POINTS = 16;

/** A fresh record of what the policy remembers of one worker. */
export function newWorkerPolicy() {
  return {
    firstOverAt: null, firstOverValue: null, baselineWarned: false, leakWarnedAt: null, confirm: newConfirmState(),
    lastGcAt: null, missedAt: null, points: [], profiling: false, windowed: null,
  };
}

/** A fresh record of what the policy remembers of one slot across its workers. */
export function newSlotPolicy() {
  return { streak: 0, heldUntil: 0, recycles: [], named: null, leaked: null };
}

/**
 * The policy state with `outcomes` folded in (the same object when there are none).
 * @param {import('./decide.js').PolicyState} state
 * @param {object[]} outcomes
 */
export function absorb(state, outcomes) {
  if (!outcomes.length) return state;
  const workers = { ...state.workers };
  const slots = [...state.slots];
  const worker = (id) => (workers[id] = { ...(workers[id] ?? newWorkerPolicy()) });
  for (const o of outcomes) {
    switch (o.type) {
      case OUTCOME.POINT: {
        const w = worker(o.id);
        w.points = [...w.points, o.point].slice(-KEEP_POINTS);
        break;
      }
      case OUTCOME.GC: worker(o.id).lastGcAt = o.at; break;
      case OUTCOME.SPARE: worker(o.id).missedAt = o.at; break;
      case OUTCOME.FAILED:
        slots[o.slot] = { ...(slots[o.slot] ?? newSlotPolicy()), heldUntil: o.until };
        break;
      case OUTCOME.RECYCLED: {
        const slot = { ...newSlotPolicy(), ...slots[o.slot] };
        const { type, slot: _slot, id: _id, ...recycle } = o;
        slot.recycles = [...(slot.recycles ?? []), recycle].slice(-KEEP_RECYCLES);
        learnRecycle(slot, o);
        slots[o.slot] = slot;
        break;
      }
      default: throw new Error(`unknown outcome ${o.type}`);
    }
  }
  return { ...state, workers, slots };
}
