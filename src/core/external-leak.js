// A leak of external memory (Buffers, ArrayBuffers), confirmed as the heap's is: on points taken
// after a full GC, once freed backing stores are released. Polled `external` is not judged: on
// Node 24+ short-lived Buffers may wait for a major GC, so it saws upward without any leak. The
// sites come from the Buffer sampler's table, which keeps only samples whose Buffer is still alive:
// code that churns Buffers, however many, has nothing left in it. Pure: points in, a verdict out.
import { episode, steadyRise, confirmSummary, CONFIRM } from './heap-confirm.js';
import { retainedSites } from './heap-sites.js';
import { projectTimeToLimit } from './trend.js';

/**
 * A confirmed external leak from the current suspicion's points, or null: { kind:'external',
 * field:'externalAfterGc', growthBytesPerSec, r2, confidence, windowMs, sites, projectedLimitInSec, confirm }.
 * @param {import('./heap-confirm.js').ConfirmPoint[]} allPoints
 * @param {import('./heap-confirm.js').ConfirmState} st
 * @param {{minGrowth:number, rssLimit?:number|null, treeRss?:number|null}} o
 */
export function confirmedExternalLeak(allPoints, st, { minGrowth, rssLimit = null, treeRss = null }) {
  if (!st?.external) return null;
  const points = episode(allPoints, st).slice(-CONFIRM.maxPoints);
  const fit = steadyRise(points, 'externalAfter', minGrowth);
  if (!fit) return null;
  const first = points.find((p) => p.buffers);
  const last = points.findLast((p) => p.buffers);
  return {
    kind: 'external',
    field: 'externalAfterGc',
    growthBytesPerSec: fit.slope,
    r2: fit.r2,
    confidence: fit.r2,
    windowMs: points.at(-1).at - points[0].at,
    sites: first && last && first !== last ? retainedSites(first.buffers, last.buffers, last.at - first.at) : null,
    externalAfterGc: points.at(-1).externalAfter,
    projectedLimitInSec: projectTimeToLimit(treeRss, fit.slope, rssLimit),
    confirm: confirmSummary(points),
  };
}
