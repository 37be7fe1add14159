// Leak verdicts, trends and advice for live workers: the trend core applied to each worker's
// history, and the resulting warnings logged once rather than on every tick.
import { EVENTS, REASONS } from '../constants.js';
import { detectLeak, detectStep, heapField } from '../core/leak-detector.js';
import { growth, linearTrend, projectTimeToLimit } from '../core/trend.js';
import { advise } from '../core/advice.js';

const TREND_WINDOW_MS = 60_000;
const ADVICE_EVERY_MS = 30_000;

/** The leak verdict for a worker (action 'recycle'), or null; with action 'warn' it only logs. */
export function leakVerdict(sup, s, h, now) {
  const { leak, limits, pollInterval } = sup.config;
  if (!leak) return null;
  // Warm-up (caches filling after start) must not read as a leak: judged from readiness on.
  const found = detectLeak(h.window, { leak, limits, now, pollInterval, startedAt: h.readyAt ?? h.startedAt });
  if (!found) return null;
  if (leak.action === 'warn') {
    if (h.leakWarnedAt === undefined || now - h.leakWarnedAt >= leak.window) {
      h.leakWarnedAt = now;
      sup.emit('warn', {
        event: EVENTS.LEAK_WARNING, slot: s.slot, pid: h.pid, kind: found.kind, growthBytesPerSec: Math.round(found.growthBytesPerSec),
        projectedLimitInSec: found.projectedLimitInSec === null ? null : Math.round(found.projectedLimitInSec), confidence: round2(found.confidence),
      }, `slot ${s.slot}: ${found.kind} grows ${(found.growthBytesPerSec * 60 / 1048576).toFixed(1)} MiB/min`);
    }
    return null;
  }
  return {
    reason: REASONS.LEAK, kind: found.kind, value: Math.round(found.growthBytesPerSec), limit: Math.round(leak.minGrowth),
    trend: { field: found.field, growthBytesPerSec: Math.round(found.growthBytesPerSec), r2: round2(found.r2), windowMs: found.windowMs, projectedLimitInSec: found.projectedLimitInSec === null ? null : Math.round(found.projectedLimitInSec) },
  };
}

/** Growth of tree RSS and of the heap baseline over the last minute, bytes/s, and time to the rss limit. */
export function workerTrend(h, config, now) {
  // From readiness on, and only over enough time: three samples in a worker's first second
  // extrapolate to nonsense like "+1.4 GiB/min".
  const since = Math.max(now - TREND_WINDOW_MS, h.readyAt ?? h.startedAt);
  const fit = linearTrend(h.window.series('treeRss', since));
  const rss = fit && fit.spanMs >= Math.max(10_000, 5 * config.pollInterval) ? fit : null;
  const heap = growth(h.window, heapField(h.window.samples), { now, windowMs: TREND_WINDOW_MS, bucketMs: Math.max(2 * config.pollInterval, 5000) });
  const last = h.window.last();
  const rssPerSec = rss ? Math.round(rss.slope) : null;
  return {
    rssPerSec,
    heapPerSec: heap ? Math.round(heap.perSec) : null,
    rssLimitInSec: roundOrNull(projectTimeToLimit(last?.treeRss ?? null, rssPerSec, config.limits.rss)),
  };
}

/** GC time as a share of wall time over the last minute (seed 002), or null. */
export function gcShare(h, now) {
  return h.window.rateOf('gcMs', now - TREND_WINDOW_MS);
}

/** Advice for a worker's latest sample. */
export function adviceFor(sup, h, now, heapSpaces = null) {
  const last = h.window.last();
  if (!last) return [];
  return advise({ ...last, gcShare: gcShare(h, now) }, { limits: sup.config.limits, cgroupLimit: sup.cgroup.memoryLimit, heapSpaces });
}

/** Log each advice code once per supervisor run (checked at most every 30 s per worker). */
export function maybeAdvise(sup, h, now) {
  if (h.advisedAt !== undefined && now - h.advisedAt < ADVICE_EVERY_MS) return;
  h.advisedAt = now;
  for (const a of adviceFor(sup, h, now)) {
    if (sup.advised.has(a.code)) continue;
    sup.advised.add(a.code);
    sup.emit('warn', { event: EVENTS.ADVICE, slot: h.slot, pid: h.pid, code: a.code }, a.message);
  }
}

/** A step change in the worker's memory (seed 001's pattern), for inspect. */
export function stepOf(sup, h, now) {
  return detectStep(h.window, { now, windowMs: sup.config.leak ? sup.config.leak.window : 5 * 60_000 });
}

function round2(x) {
  return Math.round(x * 100) / 100;
}

function roundOrNull(x) {
  return x === null ? null : Math.round(x);
}
