// The recycle's step 2 (docs/architecture.md), the judgement half: after a full GC, is the worker still over the limit it was
// recycled for? Pure; the recycler samples, this decides.
import { REASONS } from '../../constants.js';
import { memoryVerdict, evaluateFleet } from './policy.js';
import { risingAtEverySample } from '../forecast/rising.js';

/**
 * True while the verdict still holds: the worker (or, for `total-rss`, the fleet) is over.
 * @param {{reason:string}} v  the verdict the recycle carries out
 * @param {{window: import('../forecast/sample-window.js').SampleWindow, fleet: {slot:number, sample:object|null}[],
 *   limits: import('../../types.js').Limits, totalLimit: number|null, now: number}} o
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

// The field each memory reason is judged on, and how fast is too fast for a GC to be worth its wait:
// rising a tenth of the limit within FAST_MS. At 10 MB/s a 150 MiB worker does that in 1.6 s,
// while a GC and the RSS it hands back take up to a second and a replacement another.
const FIELD = { [REASONS.RSS]: 'treeRss', [REASONS.HEAP]: 'heapUsed', [REASONS.NATIVE]: 'native' };
const FAST_MS = 5000;
const RECENT_MS = 3000;

/**
 * True when the verdict's memory rose at every sample of the last few seconds (three at least), so
 * fast that a GC first would only let it grow: a leak, which GCs along the way did not free. A
 * step (garbage built in one go, then flat) is not that, and keeps its GC.
 */
export function risingFast(window, v, now) {
  const field = FIELD[v.reason];
  if (!field || !(v.limit > 0)) return false;
  const perMs = risingAtEverySample(window.series(field, now - RECENT_MS));
  return perMs !== null && perMs * FAST_MS >= 0.1 * v.limit;
}
