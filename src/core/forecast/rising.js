// "Rising toward the limit", said once: whether a worker's memory rose at every recent sample, and
// how soon a rise reaches a limit. The GC-before-recycle (gc-recheck.js), the profiler's early
// start (leak/retained.js), the hot poll (hot-poll.js) and the early replacement (policy.js) all
// judge by these. Pure.

/**
 * The rate per ms from the first to the last of `points` ([t, value], oldest first) when each is
 * higher than the one before, over `min` points at least; null otherwise. A step (garbage built in
 * one go, then flat) is not a rise, nor are two points alone at the default.
 * @param {[number, number][]} points
 * @returns {number|null}
 */
export function risingAtEverySample(points, { min = 3 } = {}) {
  if (points.length < min || points.length < 2) return null;
  for (let i = 1; i < points.length; i++) if (!(points[i][1] > points[i - 1][1])) return null;
  const [t0, a] = points[0];
  const [t1, b] = points[points.length - 1];
  if (t1 <= t0) return null;
  return (b - a) / (t1 - t0);
}

/**
 * Ms until `value` reaches `limit` rising at `perMs`; null when it is at or over the limit already
 * (that is the verdict's business, not a forecast's), not rising, or either is unknown.
 * @param {number|null} value @param {number|null} perMs @param {number|null} limit
 * @returns {number|null}
 */
export function msToLimit(value, perMs, limit) {
  if (limit == null || value == null || !(value < limit) || !(perMs > 0)) return null;
  return (limit - value) / perMs;
}
