// What a worker recycled for memory retained: the part that grew and its fill rate from its own
// samples (core/leak/retained.js), and the sites its sampling profiler holds, asked of its agent at the
// decision (no GC). The answer may come after the recycle is announced: value() says what is known.
import { KIND } from '../../protocol.js';
import { retainedOf } from '../../core/leak/retained.js';
import { liveSites } from '../../core/sites/heap-sites.js';

/**
 * Start reading rec's retained memory. `promise` settles when the agent answered or gave up;
 * `value()` is `{ retained: {kind, bytesPerMin, sites} }` with what is known by then (`{}` when nothing).
 * @param {import('../lifecycle/pool.js').Pool} pool
 * @param {import('../lifecycle/worker-records.js').WorkerRecord} rec
 * @param {number} timeoutMs
 */
export function readRetained(pool, rec, timeoutMs) {
  const own = retainedOf(rec.window, rec.readyAt);
  let sites = null;
  let settled = false;
  const promise = pool.request(rec, KIND.SITES, {}, timeoutMs).then((r) => {
    const found = liveSites(r?.profile ?? null, own?.bytesPerMin ?? null);
    sites = found.length ? found : null;
  }).catch(() => {}).finally(() => { settled = true; });
  return {
    promise,
    value: () => (own || sites ? { retained: { ...(own ?? { kind: null, bytesPerMin: null }), sites, ...(settled ? {} : { sitesPending: true }) } } : {}),
  };
}
