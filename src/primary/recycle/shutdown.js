// A stop's drain: every worker retired at once (allSettled: one that cannot be drained must not
// leave the others undrained), again until none is left, since a recycle already past its checks
// may still fork a replacement; then the children left behind are reaped.
import { RETIRE } from '../../constants.js';

/**
 * Resolves once no worker of `pool` is left. `onFailed` hears each drain that failed, and is told
 * to force what is left.
 * @param {import('../lifecycle/pool.js').Pool} pool
 * @param {import('./recycler.js').Recycler} recycler
 * @param {number} decidedAt
 * @param {(err:Error) => void} onFailed
 * @param {() => void} forceAll
 */
export async function drainAll(pool, recycler, decidedAt, onFailed, forceAll) {
  while (pool.live.size) {
    const retired = await Promise.allSettled(pool.handles().map((h) => recycler.retire(h, { reason: RETIRE.STOP, decidedAt })));
    for (const r of retired) if (r.status === 'rejected') onFailed(r.reason);
    if (retired.some((r) => r.status === 'rejected')) forceAll();
  }
  await Promise.all(recycler.reaping);
}
