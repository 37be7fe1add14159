// DESIGN §4 step 2, the judgement half: after a full GC, is the worker still over the limit it was
// recycled for? Pure; the recycler samples, this decides.
import { REASONS } from '../constants.js';
import { memoryVerdict, evaluateFleet } from './policy.js';

/**
 * True while the verdict still holds: the worker (or, for `total-rss`, the fleet) is over.
 * @param {{reason:string}} v  the verdict the recycle carries out
 * @param {{window: import('./sample-window.js').SampleWindow, fleet: {slot:number, sample:object|null}[],
 *   limits: import('../types.js').Limits, totalLimit: number|null, now: number}} o
 */
export function stillOver(v, { window, fleet, limits, totalLimit, now }) {
  if (v.reason === REASONS.TOTAL_RSS) return evaluateFleet(fleet, totalLimit) !== null;
  // At once: the limit was sustained already when the verdict was made.
  return memoryVerdict(window, { ...limits, sustain: 0 }, now) !== null;
}

/** The least time between two GCs-before-recycle of one worker: one hovering at its limit is not GC'd every poll. */
export function gcMinIntervalMs(config) {
  return Math.max(60_000, 30 * config.pollInterval);
}
