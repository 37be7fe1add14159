// A leak of external memory (Buffers, ArrayBuffers), confirmed as the heap's is: on points taken
// after a full GC, once freed backing stores are released. Polled `external` is not judged: on
// Node 24+ short-lived Buffers may wait for a major GC, so it saws upward without any leak. The
// sites come from the Buffer sampler's table, which keeps only samples whose Buffer is still alive:
// code that churns Buffers, however many, has nothing left in it. Pure: points in, a verdict out.
import { LEAK_KINDS } from '../../constants.js';
import { confirmedRise } from './heap-confirm.js';
import { projectTimeToLimit } from '../forecast/trend.js';

/**
 * A confirmed external leak from the current suspicion's points, or null: { kind:'external',
 * field:'externalAfterGc', growthBytesPerSec, r2, confidence, windowMs, sites, projectedLimitInSec, confirm }.
 * @param {import('./heap-confirm.js').ConfirmPoint[]} allPoints
 * @param {import('./heap-confirm.js').ConfirmState} st
 * @param {{minGrowth:number, rssLimit?:number|null, treeRss?:number|null, window?:import('../forecast/sample-window.js').SampleWindow, pollInterval?:number}} o
 *   window: the worker's samples; polled external memory that fell back below a point refutes it
 */
export function confirmedExternalLeak(allPoints, st, { minGrowth, rssLimit = null, treeRss = null, window, pollInterval }) {
  if (!st?.external) return null;
  const found = confirmedRise(allPoints, st, { kind: LEAK_KINDS.EXTERNAL, field: 'externalAfter', profile: 'buffers', minGrowth, window, pollInterval });
  if (!found) return null;
  const { last, ...verdict } = found;
  return { ...verdict, externalAfterGc: last.externalAfter, projectedLimitInSec: projectTimeToLimit(treeRss, found.growthBytesPerSec, rssLimit) };
}
