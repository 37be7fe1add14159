// A suspected heap leak, confirmed with full GCs instead of waiting two leak windows. The polled
// post-GC floor only raises a suspicion (a scavenge leaves old-generation garbage behind, so it
// wanders). The heap after a *full* GC is what the app retains: a few of those points, some seconds
// apart, tell a leak (rises steadily) from a sawtooth (flat), a step (one jump), and a warm-up or a
// cache filling to its cap (rises ever slower). Pure: points in, decisions out.
import { growth, linearTrend } from './trend.js';
import { retainedSites } from './heap-sites.js';
import { LEAK_KINDS } from '../constants.js';

/**
 * @typedef {object} ConfirmPoint  the heap after one full GC (protocol KIND.CONFIRM reply)
 * @property {number} at  ms @property {number} heapAfter  bytes
 * @property {boolean} forced  false: a full GC the worker ran by itself, reused
 * @property {number|null} pauseMs  the forced GC's pause
 * @property {import('./heap-sites.js').FlatProfile|null} sites
 * @property {string|null} [profiler]  why there are no sites
 */

export const CONFIRM = Object.freeze({
  spacingMs: 20_000, // between two points of one worker: a leak of 1 MiB/min rises 0.33 MiB in it
  suspectMs: 30_000, // the floor's trend is read over this much history
  suspectMinMs: 15_000, // and needs at least this much of it, from readiness on
  suspect: 0.5, // × leak.minGrowth: the floor's trend that raises a suspicion
  points: 4, // points a verdict needs (three intervals: one step cannot pass for a ramp)
  maxPoints: 8, // the verdict reads the newest this many
  r2: 0.9,
  // × leak.minGrowth the fitted rate must reach: over a minute or two of points a leak at exactly
  // minGrowth reads ±10 % (heap-leak-late at 1 MiB/min read 0.96 with its first interval short).
  rate: 0.9,
  interval: 0.25, // each interval must rise at this share of the fitted rate: no plateau, no step
  steady: 0.7, // the newer half must rise at this share of the older half's rate: warm-ups slow down
  refute: 0.25, // × minGrowth: two points rising slower than this end the suspicion
  holdMs: 60_000, // after a suspicion ended, no new one for this long
  budgetMs: 10 * 60_000, // forced GC pauses over this span …
  budgetShare: 0.01, // … may take at most this share of it (6 s in 10 min)
});

const C = CONFIRM;

/**
 * @typedef {{since:number|null, heldUntil:number, confirmedAt:number|null}} ConfirmState  per worker, in the policy state
 */
export const newConfirmState = () => ({ since: null, heldUntil: 0, confirmedAt: null });

/**
 * What to do about one worker's heap this tick: a confirmation point ('probe'), end a suspicion
 * ('stop'), or nothing (null). Also returns the worker's next ConfirmState.
 * @param {{window: import('./sample-window.js').SampleWindow, readyAt:number|null, startedAt:number, points?:ConfirmPoint[]}} w
 * @param {ConfirmState} st
 * @param {number} now
 * @param {{minGrowth:number, pollInterval:number}} o
 * @returns {{state: ConfirmState, action: 'probe'|'stop'|null}}
 */
export function confirmStep(w, st, now, { minGrowth, pollInterval, spacingMs = C.spacingMs }) {
  const points = episode(w.points, st);
  const last = points.at(-1);
  if (st.since !== null) {
    // Two points that barely rise end it: a sawtooth or a flat heap, not a leak.
    const prev = points.at(-2);
    if (last && prev && (last.heapAfter - prev.heapAfter) / ((last.at - prev.at) / 1000) < C.refute * minGrowth) {
      return { state: { since: null, heldUntil: now + C.holdMs, confirmedAt: null }, action: 'stop' };
    }
    if (last && now - last.at < Math.max(spacingMs, 2 * pollInterval)) return { state: st, action: null };
    if (!withinBudget(w.points ?? [], now)) return { state: st, action: null };
    return { state: st, action: 'probe' };
  }
  if (now < st.heldUntil || !suspected(w, now, minGrowth, pollInterval)) return { state: st, action: null };
  if (!withinBudget(w.points ?? [], now)) return { state: st, action: null };
  return { state: { since: now, heldUntil: 0, confirmedAt: null }, action: 'probe' };
}

function suspected(w, now, minGrowth, pollInterval) {
  const since = Math.max(now - C.suspectMs, (w.readyAt ?? w.startedAt) + 2 * pollInterval);
  if (now - since < C.suspectMinMs) return false;
  const field = w.window.last()?.heapFloor != null ? 'heapFloor' : 'heapUsed';
  const g = growth(w.window, field, { now, windowMs: now - since, bucketMs: Math.max(2 * pollInterval, 5000) });
  return g !== null && g.spanMs >= C.suspectMinMs && g.perSec >= C.suspect * minGrowth;
}

function withinBudget(points, now) {
  let spent = 0;
  for (const p of points) if (p.forced && now - p.at <= C.budgetMs) spent += p.pauseMs ?? 0;
  return spent < C.budgetShare * C.budgetMs;
}

// The points of the current suspicion only.
function episode(points, st) {
  if (!points?.length || st.since === null) return [];
  const since = st.since;
  const out = [];
  // A full GC the worker ran by itself just before may be the first point.
  for (const p of points) if (p.at >= since - C.spacingMs) out.push(p);
  return out;
}

/**
 * A confirmed heap leak from the current suspicion's points, or null:
 * { kind:'heap', growthBytesPerSec, r2, windowMs, sites, confirm: {points, forced, maxPauseMs, pauseMs} }.
 * @param {ConfirmPoint[]} allPoints @param {ConfirmState} st @param {number} minGrowth
 */
export function confirmedLeak(allPoints, st, minGrowth) {
  const points = episode(allPoints, st).slice(-C.maxPoints);
  if (points.length < C.points) return null;
  const fit = linearTrend(points.map((p) => [p.at, p.heapAfter]));
  if (!fit || fit.slope < C.rate * minGrowth || fit.r2 < C.r2) return null;
  for (let i = 1; i < points.length; i++) {
    const rate = (points[i].heapAfter - points[i - 1].heapAfter) / ((points[i].at - points[i - 1].at) / 1000);
    if (rate < C.interval * fit.slope) return null;
  }
  const half = points.length >> 1;
  const older = rate(points[0], points[half]);
  const newer = rate(points[points.length - 1 - half], points[points.length - 1]);
  if (newer < C.steady * older) return null;
  const first = points.find((p) => p.sites);
  const lastWithSites = points.findLast((p) => p.sites);
  const forced = points.filter((p) => p.forced);
  return {
    kind: LEAK_KINDS.HEAP,
    field: 'heapAfterGc',
    growthBytesPerSec: fit.slope,
    r2: fit.r2,
    confidence: fit.r2,
    windowMs: points.at(-1).at - points[0].at,
    sites: first && lastWithSites && first !== lastWithSites ? retainedSites(first.sites, lastWithSites.sites, lastWithSites.at - first.at) : null,
    sitesUnavailable: points.at(-1).profiler ?? null,
    heapAfterGc: points.at(-1).heapAfter,
    confirm: {
      points: points.length,
      forcedGcs: forced.length,
      maxPauseMs: forced.length ? Math.max(...forced.map((p) => p.pauseMs ?? 0)) : null,
      pauseMs: Math.round(forced.reduce((a, p) => a + (p.pauseMs ?? 0), 0) * 10) / 10,
    },
  };
}

const rate = (a, b) => (b.heapAfter - a.heapAfter) / ((b.at - a.at) / 1000);
