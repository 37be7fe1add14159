// Per-worker verdicts: from a worker's sample history, its limits and `now`, should it go, and why?
// Pure: the shell passes in everything, including the per-worker jitter draw.
import { REASONS } from '../../constants.js';
import { linearTrend } from '../forecast/trend.js';
import { msToLimit } from '../forecast/rising.js';
import { memoryOf } from '../forecast/memory-of.js';

/** @typedef {import('../../types.js').Sample} Sample @typedef {import('../../types.js').Limits} Limits */

/**
 * The first limit a worker is over, or null. Order: a blocked worker first (its samples are
 * stale), then memory (the urgent ones), then the scheduled limits.
 * @param {object} w
 * @param {import('../forecast/sample-window.js').SampleWindow} w.window
 * @param {number} w.readyAt          ms, when the worker became ready
 * @param {number} w.lastReplyAt      ms, last time the agent answered
 * @param {number} w.jitterDraw       0..1, drawn once per worker
 * @param {{limits:Limits, unresponsive:{timeout:number}|false}} config
 * @param {number} now
 */
export function evaluateWorker(w, config, now) {
  const { limits } = config;
  if (config.unresponsive && now - w.lastReplyAt > config.unresponsive.timeout) {
    return verdict(REASONS.UNRESPONSIVE, now - w.lastReplyAt, config.unresponsive.timeout);
  }
  const memory = memoryVerdict(w.window, limits, now);
  if (memory) return memory;
  const scale = 1 - limits.jitter * w.jitterDraw;
  if (limits.maxAge !== null) {
    const maxAge = Math.round(limits.maxAge * scale);
    if (now - w.readyAt >= maxAge) return verdict(REASONS.MAX_AGE, now - w.readyAt, maxAge);
  }
  if (limits.maxRequests !== null) {
    const last = w.window.last();
    const maxRequests = Math.round(limits.maxRequests * scale);
    if (last?.requests != null && last.requests >= maxRequests) return verdict(REASONS.MAX_REQUESTS, last.requests, maxRequests);
  }
  return null;
}

/**
 * A worker that will cross limits.rss sooner than a replacement takes to become ready: the
 * replacement should start now, so the old worker can be drained at the crossing instead of a
 * startup later. From the tree RSS of the last few seconds (a fast leak is seconds from its limit):
 * a steady rise (r2 ≥ 0.8) projected to the limit within the startup time and two polls.
 * @param {import('../forecast/sample-window.js').SampleWindow} window
 * @param {number|null} rssLimit
 * @param {number} now
 * @param {{startupMs:number|null, pollInterval:number}} o  startupMs: the app's recent startup time
 * @returns {{reason:string, value:number, limit:number, predictive:true, crossingInMs:number}|null}
 */
export function predictCrossing(window, rssLimit, now, { startupMs, pollInterval, readyAt = -Infinity }) {
  if (rssLimit === null || startupMs === null) return null;
  const horizonMs = startupMs + 2 * pollInterval;
  // Not from the first half second after readiness: a process's own start-up growth is not a leak.
  const points = window.series('treeRss', Math.max(now - Math.max(3000, 4 * pollInterval), readyAt + 500));
  const fit = linearTrend(points);
  if (!fit || fit.n < 3 || fit.r2 < 0.8 || !(fit.slope > 0)) return null;
  const current = points[points.length - 1][1];
  if (current >= rssLimit) return null; // over already: the plain verdict's business
  // A worker that started near its limit is below-baseline's business (a hold), not a leak's.
  const first = window.series('treeRss', readyAt)[0];
  if (!first || first[1] > 0.75 * rssLimit) return null;
  // linearTrend's slope is per second; a crossing is timed in ms.
  const inMs = msToLimit(current, fit.slope / 1000, rssLimit);
  if (inMs === null || inMs > horizonMs) return null;
  return { reason: REASONS.RSS, value: current, limit: rssLimit, predictive: true, crossingInMs: Math.round(inMs) };
}

/** Which memory limit the latest sample is over, sustained for limits.sustain, or null. */
export function memoryVerdict(window, limits, now) {
  const checks = [
    [REASONS.RSS, limits.rss, memoryOf],
    [REASONS.HEAP, limits.heapUsed, (s) => s.heapUsed],
    [REASONS.NATIVE, limits.native, (s) => s.native],
  ];
  const last = window.last();
  if (!last) return null;
  for (const [reason, limit, read] of checks) {
    if (limit === null) continue;
    const value = read(last);
    if (value === null || value === undefined || value <= limit) continue;
    if (limits.sustain > 0 && !sustainedOver(window, read, limit, now - limits.sustain)) continue;
    return verdict(reason, value, limit);
  }
  return null;
}

// Over the limit in every sample since `since`, and the history reaches back that far: one spike
// is not a reason.
function sustainedOver(window, read, limit, since) {
  const first = window.samples[0];
  if (!first || first.t > since) return false;
  for (const s of window.since(since)) {
    const v = read(s);
    if (v === null || v === undefined || v <= limit) return false;
  }
  return true;
}

/**
 * The whole fleet over limits.totalRss: the largest worker goes (puma_worker_killer's idea, but
 * summing PSS so shared pages are not counted twice). Returns a verdict with its slot, or null.
 * @param {{slot:number, sample:Sample|null}[]} workers  serving workers only
 * @param {number|null} totalLimit  bytes, already resolved against the cgroup limit
 */
export function evaluateFleet(workers, totalLimit) {
  if (totalLimit === null) return null;
  let total = 0;
  let largest = null;
  for (const w of workers) {
    const v = w.sample ? (w.sample.treePss ?? memoryOf(w.sample)) : null;
    if (v === null) continue;
    total += v;
    if (!largest || v > largest.value) largest = { slot: w.slot, value: v };
  }
  if (total <= totalLimit || !largest) return null;
  return { slot: largest.slot, ...verdict(REASONS.TOTAL_RSS, total, totalLimit) };
}

/** Resolve limits.totalRss against the cgroup memory limit: bytes, or null when unknowable. */
export function resolveTotalLimit(totalRss, cgroupLimit) {
  if (!totalRss) return null;
  if ('bytes' in totalRss) return totalRss.bytes;
  return cgroupLimit ? Math.floor(cgroupLimit * totalRss.fraction) : null;
}

/**
 * A worker over a memory limit at its very first samples cannot be helped by a recycle: its
 * successor will start just as big. Hold such verdicts back for a growing grace so a limit set
 * below the app's baseline gives a warning and a slow cadence, not a recycle loop. A young worker
 * that keeps growing (20 % past where it first crossed) is leaking fast, not starting big: no hold.
 * @param {{readyAt:number, firstOverAt:number|null, firstOverValue?:number|null, value?:number|null}} w
 * @param {{streak:number}} slot   consecutive young-over-limit workers in this slot
 * @param {{pollInterval:number, baseGraceMs:number, maxGraceMs:number}} o
 * @returns {{hold:boolean, young:boolean, graceMs:number}}
 */
export function baselineHold(w, slot, now, o) {
  const growing = w.firstOverValue != null && w.value != null && w.value > w.firstOverValue * 1.2;
  const young = w.firstOverAt !== null && w.firstOverAt - w.readyAt <= 3 * o.pollInterval && !growing;
  const graceMs = Math.min(o.maxGraceMs, o.baseGraceMs * 2 ** slot.streak);
  return { young, graceMs, hold: young && now - w.readyAt < graceMs };
}

function verdict(reason, value, limit) {
  return { reason, value, limit };
}
