// What a worker's history says about where it is heading: growth of the tree's RSS and of the
// post-GC heap over the last minute, the time to the rss limit, and the GC share. Pure: the view
// code, the decision and inspect read the same numbers.
import { heapField, detectStep } from '../leak/leak-detector.js';
import { growth, trendSince, projectTimeToLimit } from './trend.js';
import { memoryOf } from './memory-of.js';

/** How far back the trend and the GC share look. */
export const TREND_WINDOW_MS = 60_000;

/**
 * Growth of tree RSS and of the heap baseline over the last minute, bytes/s, and time to the rss limit.
 * @param {{window: import('./sample-window.js').SampleWindow, readyAt:number|null, startedAt:number}} w
 * @param {{pollInterval:number, limits:{rss:number|null}}} config
 */
export function workerTrend(w, config, now) {
  // From readiness on, and only over enough time: three samples in a worker's first second
  // extrapolate to nonsense like "+1.4 GiB/min".
  const since = Math.max(now - TREND_WINDOW_MS, w.readyAt ?? w.startedAt);
  const fit = trendSince(w.window, 'treeRss', since);
  const rss = fit && fit.spanMs >= Math.max(10_000, 5 * config.pollInterval) ? fit : null;
  const heap = growth(w.window, heapField(w.window.samples), { now, windowMs: TREND_WINDOW_MS, bucketMs: Math.max(2 * config.pollInterval, 5000) });
  const last = w.window.last();
  const rssPerSec = rss ? Math.round(rss.slope) : null;
  return {
    rssPerSec,
    heapPerSec: heap ? Math.round(heap.perSec) : null,
    rssLimitInSec: roundOrNull(projectTimeToLimit(memoryOf(last), rssPerSec, config.limits.rss)),
  };
}

/** GC time as a share of wall time over the last minute (docs/incidents.md, incident 3), or null. */
export function gcShareLastMinute(window, now) {
  return window.rateOf('gcMs', now - TREND_WINDOW_MS);
}

/** How hot the scavenger runs over the last minute: scavenges a second and their share of wall time (docs/incidents.md, incident 1). */
export function scavenger(window, now) {
  const since = now - TREND_WINDOW_MS;
  const perMs = window.rateOf('minorGcCount', since);
  return { scavengesPerSec: perMs === null ? null : perMs * 1000, minorGcShare: window.rateOf('minorGcMs', since) };
}

// A step is first looked for over the last two minutes in 10 s buckets, so it is reported about
// 30 s after it happens (three buckets at the new level), not a third of a leak window later.
const RECENT_STEP = { windowMs: 120_000, bucketMs: 10_000 };

/** A step change in the worker's memory (the pattern of docs/incidents.md, incident 2): a recent one first, then over the leak window. */
export function stepOf(window, leak, now) {
  return detectStep(window, { now, ...RECENT_STEP }) ?? detectStep(window, { now, windowMs: leak ? leak.window : 5 * 60_000 });
}

function roundOrNull(x) {
  return x === null ? null : Math.round(x);
}

// Native memory over the last two minutes: rising (a native leak: contexts never closed, an addon)
// or flat (memory freed but kept by the allocator). The fit must be clean to say either.
const NATIVE_TREND = { windowMs: 120_000, minSpanMs: 60_000, minPoints: 5, perMin: 1024 * 1024, r2: 0.8 };

/** true: native memory rises steadily; false: it is flat; null: too little or too noisy to say. */
export function nativeRising(window, now) {
  const fit = trendSince(window, 'native', now - NATIVE_TREND.windowMs);
  if (!fit || fit.n < NATIVE_TREND.minPoints || fit.spanMs < NATIVE_TREND.minSpanMs) return null;
  const perMin = fit.slope * 60; // the fit's slope is bytes per second
  if (Math.abs(perMin) < NATIVE_TREND.perMin) return false;
  return perMin > 0 && fit.r2 >= NATIVE_TREND.r2 ? true : null;
}
