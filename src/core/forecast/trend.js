// Trend maths over a worker's history: how fast the post-GC baseline of a field grows, and how
// sure we are of it. Called for several fields of every worker on every poll, so it walks the
// window's columns (SampleWindow.column) in place and only allocates one small array per bucket series.

/** @typedef {import('./sample-window.js').SampleWindow} SampleWindow */

const pointT = (p) => p[0];
const pointV = (p) => p[1];

/** Least-squares line through [t_ms, value] points: slope in units per second; null if it cannot be fitted. */
export function linearTrend(points) {
  const n = points.length;
  const ts = new Array(n);
  const vs = new Array(n);
  for (let i = 0; i < n; i++) { ts[i] = points[i][0]; vs[i] = points[i][1]; }
  return lineFit(ts, vs, 0);
}

/**
 * linearTrend of one Sample field over the samples with t >= since, read from the window's columns:
 * the same line, without a [t, value] pair made per sample (the minute's RSS trend is fitted for
 * every worker on every tick).
 * @param {SampleWindow} window
 */
export function trendSince(window, field, since) {
  return lineFit(window.column('t'), window.column(field), window.indexSince(since));
}

/**
 * The least-squares line through (ts[i], vs[i]) for i >= from where keep(i), NaN values skipped:
 * linearTrend over chosen samples of a window's columns (the floors read after a major GC).
 * @param {ArrayLike<number>} ts @param {ArrayLike<number>} vs @param {number} from @param {(i: number) => boolean} [keep]
 */
export function lineFit(ts, vs, from, keep) {
  let n = 0;
  let first = -1;
  let last = -1;
  let st = 0;
  let sv = 0;
  for (let i = from; i < ts.length; i++) {
    const v = vs[i];
    if (Number.isNaN(v) || (keep && !keep(i))) continue;
    if (first < 0) first = i;
    last = i;
    n++;
    st += ts[i]; sv += v;
  }
  if (n < 3) return null;
  const spanMs = ts[last] - ts[first];
  if (!(spanMs > 0)) return null;
  const mt = st / n;
  const mv = sv / n;
  // Centre t first: epoch milliseconds squared lose every digit a 30 s window needs.
  let stt = 0;
  let stv = 0;
  let svv = 0;
  for (let i = first; i <= last; i++) {
    const v = vs[i];
    if (Number.isNaN(v) || (keep && !keep(i))) continue;
    const dt = ts[i] - mt;
    const dv = v - mv;
    stt += dt * dt; stv += dt * dv; svv += dv * dv;
  }
  if (!(stt > 0)) return null;
  const perMs = stv / stt;
  // A flat series is fitted perfectly by a flat line: r2 1, slope 0, which no detector calls a leak.
  const r2 = svv > 0 ? (stv * stv) / (stt * svv) : 1;
  return { slope: perMs * 1000, intercept: mv - perMs * mt, r2, n, spanMs };
}

// Bucket minima of values[from..] (times ts, index for index) with t <= endT. Buckets are counted back
// from endT, bucket b being (endT − (b+1)·bucketMs, endT − b·bucketMs], so the newest is always whole.
// The oldest bucket counts only if the history covers half of it, and none past maxBuckets: a partial
// oldest bucket holding a single sawtooth peak bends the whole fit. NaN, null and undefined values
// are skipped.
function minima(ts, values, from, bucketMs, endT, maxBuckets = Infinity) {
  const out = [];
  if (from >= ts.length) return out;
  const covered = Math.floor((endT - ts[from]) / bucketMs + 0.5);
  if (covered < maxBuckets) maxBuckets = covered;
  let bucket = NaN;
  let minT = 0;
  let minV = Infinity;
  for (let i = from; i < ts.length; i++) {
    const t = ts[i];
    if (t > endT) break;
    const v = values[i];
    if (v === null || v === undefined || Number.isNaN(v)) continue;
    const b = Math.floor((endT - t) / bucketMs);
    if (b >= maxBuckets) continue;
    if (b !== bucket) {
      if (minV !== Infinity) out.push([minT, minV]);
      bucket = b; minV = Infinity;
    }
    if (v < minV) { minV = v; minT = t; }
  }
  if (minV !== Infinity) out.push([minT, minV]);
  return out;
}

/** The post-GC baseline of a sawtoothing series: the minimum of each bucketMs bucket, as [t, min][]. */
export function baselineSeries(points, bucketMs) {
  if (!points.length || !(bucketMs > 0)) return [];
  return minima(points.map(pointT), points.map(pointV), 0, bucketMs, points[points.length - 1][0]);
}

/**
 * The newest non-null value of `field` among samples[from..], or null: a sample whose agent reply
 * came late lacks the agent's fields, and the newest reading of each is what it last said.
 */
export function newestValue(samples, field, from = 0) {
  for (let i = samples.length - 1; i >= from; i--) {
    const v = samples[i][field];
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

/** Index of the first sample with t >= since (samples are time-ordered). */
export function firstIndexSince(samples, since) {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid].t < since) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** Bucket minima of one Sample field over the whole buckets of (now − windowMs, now], as [t, min][]. */
export function windowBaseline(window, field, { now, windowMs, bucketMs }) {
  const from = window.indexSince(now - windowMs);
  const maxBuckets = Math.max(1, Math.floor(windowMs / bucketMs));
  return minima(window.column('t'), window.column(field), from, bucketMs, now, maxBuckets);
}

/**
 * Growth of the baseline of `field` over the last windowMs, with the shape checks a leak verdict needs:
 * { perSec, r2, n (buckets), spanMs, coverage, rising, jumpShare, recentPerSec, first, last }.
 * `rising` is the share of bucket-to-bucket steps that did not fall by more than one bucket's worth
 * of the fitted growth; `jumpShare` is the largest single step as a share of the fitted rise (a step
 * change carries ~all of it, a leak spreads it); `recentPerSec` is the slope of the newest half of
 * the buckets (a warm-up slows down, a leak does not; null under 3 buckets). Null with fewer than 3
 * buckets or no span.
 */
export function growth(window, field, { now, windowMs, bucketMs }) {
  const base = windowBaseline(window, field, { now, windowMs, bucketMs });
  const fit = linearTrend(base);
  if (!fit) return null;
  const perBucket = Math.abs(fit.slope) * (bucketMs / 1000);
  let holding = 0;
  let maxJump = 0;
  for (let i = 1; i < base.length; i++) {
    const d = base[i][1] - base[i - 1][1];
    if (d >= -perBucket) holding++;
    if (d > maxJump) maxJump = d;
  }
  const rise = fit.slope * (fit.spanMs / 1000);
  const recent = base.length >= 6 ? linearTrend(base.slice(base.length >> 1)) : null;
  // Coverage is about the history we have, so it is measured on raw samples, not on bucket minima.
  const spanMs = rawSpan(window, field, now - windowMs, now);
  return {
    perSec: fit.slope,
    r2: fit.r2,
    n: fit.n,
    spanMs,
    coverage: Math.min(1, spanMs / windowMs),
    rising: holding / (base.length - 1),
    jumpShare: rise > 0 ? maxJump / rise : Infinity,
    recentPerSec: recent ? recent.slope : null,
    first: base[0][1],
    last: base[base.length - 1][1],
  };
}

// Time between the oldest and newest value of field within [since, until].
function rawSpan(window, field, since, until) {
  const ts = window.column('t');
  const values = window.column(field);
  let i = window.indexSince(since);
  let j = ts.length - 1;
  while (j >= i && (ts[j] > until || Number.isNaN(values[j]))) j--;
  while (i < j && Number.isNaN(values[i])) i++;
  return j > i ? ts[j] - ts[i] : 0;
}

// Best split of pts into two flat levels, [0, s) and [s, k): O(k) with running sums.
function twoLevels(pts, minAfter) {
  const k = pts.length;
  let best = null;
  let sb = 0;
  let qb = 0;
  let sa = 0;
  let qa = 0;
  for (const [, v] of pts) { sa += v; qa += v * v; }
  for (let s = 1; s < k; s++) {
    const v = pts[s - 1][1];
    sb += v; qb += v * v; sa -= v; qa -= v * v;
    if (s < 2 || k - s < minAfter) continue;
    const sse = qb - (sb * sb) / s + qa - (sa * sa) / (k - s);
    if (!best || sse < best.sse) best = { s, sse, before: sb / s, after: sa / (k - s) };
  }
  return best;
}

function range(pts, from, to) {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = from; i < to; i++) { lo = Math.min(lo, pts[i][1]); hi = Math.max(hi, pts[i][1]); }
  return hi - lo;
}

/**
 * The best two-level fit of [t, value] points (a level shift), robust to one outlying point, or null:
 * { s, before, after, explained (share of variance), vsLine (its SSE over a straight line's), spread
 * (the wider level's range), points (without the outlier; the new level starts at points[s]) }.
 */
export function levelShift(pts, minAfter = 2) {
  if (pts.length < 3 + minAfter) return null;
  const first = twoLevels(pts, minAfter);
  if (!first) return null;
  // Drop the point furthest from its level: a freed allocation may lift one bucket.
  let worst = -1;
  let worstErr = -1;
  for (let i = 0; i < pts.length; i++) {
    const err = Math.abs(pts[i][1] - (i < first.s ? first.before : first.after));
    if (err > worstErr) { worstErr = err; worst = i; }
  }
  const kept = pts.filter((_, i) => i !== worst);
  const step = twoLevels(kept, minAfter);
  const line = linearTrend(kept);
  if (!step || !line) return null;
  let sum = 0;
  for (const [, v] of kept) sum += v;
  const mean = sum / kept.length; // sum then divide: flat data must give sst exactly 0
  let sst = 0;
  for (const [, v] of kept) sst += (v - mean) ** 2;
  if (!(sst > 0)) return null;
  const lineSse = sst * (1 - line.r2);
  return {
    s: step.s, before: step.before, after: step.after, points: kept,
    explained: 1 - step.sse / sst,
    vsLine: lineSse > 0 ? step.sse / lineSse : Infinity,
    spread: Math.max(range(kept, 0, step.s), range(kept, step.s, kept.length)),
  };
}

/** Seconds until `current` reaches `limit` at perSec: 0 when already there, null when it never will or is unknown. */
export function projectTimeToLimit(current, perSec, limit) {
  if (limit === null || limit === undefined || current === null || current === undefined) return null;
  if (current >= limit) return 0;
  if (!(perSec > 0)) return null;
  return (limit - current) / perSec;
}
