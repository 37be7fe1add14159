// Helper processes started and never ended (a headless browser never closed, a converter left
// running): named from the worker's process tree in a minute and a half of climbing, not a whole
// leak window. Process counts are exact, so no GC point is needed: a count that climbs steadily,
// still at its top, with the children's memory rising with it, is a leak. A pool that fills and
// holds, and helpers that end after their job, are not. Pure: samples in, a verdict out.
import { linearTrend } from '../forecast/trend.js';
import { LEAK_KINDS } from '../../constants.js';
import { childCommands } from '../sites/child-commands.js';

export const CHILDREN_THRESHOLDS = Object.freeze({
  windowMs: 90_000, // the climb must hold this long: a burst of jobs comes and goes sooner
  minSpanMs: 80_000,
  minRise: 3, // processes more at the end than at the start of the window
  minPerMin: 2, // the fitted climb, processes a minute
  r2: 0.8, // a staircase of one process at a time still fits a line well
  atTop: 1, // the newest count is the highest: still climbing, not after a burst
  memory: 1, // × leak.minGrowth: the children's RSS must rise at least this fast
});

const C = CHILDREN_THRESHOLDS;

/**
 * A children leak in one worker, or null: { kind:'children', growthBytesPerSec (children's RSS),
 * processesPerMin, children, r2, windowMs, commands? }.
 * @param {import('../forecast/sample-window.js').SampleWindow} window
 * @param {{now:number, startedAt:number|null, minGrowth:number}} o
 */
export function detectChildrenLeak(window, { now, startedAt = null, minGrowth }) {
  // Every worker, every tick: one with fewer children than a climb needs costs one comparison.
  if (!((window.last()?.children ?? 0) >= C.minRise)) return null;
  const since = Math.max(now - C.windowMs, startedAt ?? -Infinity);
  const samples = (window.since ? window.since(since) : window.samples.filter((s) => s.t >= since))
    .filter((s) => s.children != null && s.childrenRss != null);
  if (samples.length < 5 || samples.at(-1).t - samples[0].t < C.minSpanMs) return null;
  const first = samples[0];
  const last = samples.at(-1);
  if (last.children - first.children < C.minRise) return null;
  if (last.children < C.atTop * Math.max(...samples.map((s) => s.children))) return null;
  const count = linearTrend(samples.map((s) => [s.t, s.children]));
  if (!count || count.slope * 60 < C.minPerMin || count.r2 < C.r2) return null;
  const rss = linearTrend(samples.map((s) => [s.t, s.childrenRss]));
  if (!rss || rss.slope < C.memory * minGrowth) return null;
  const commands = commandsOf(samples);
  return {
    kind: LEAK_KINDS.CHILDREN, field: 'childrenRss', growthBytesPerSec: rss.slope,
    processesPerMin: Math.round(count.slope * 600) / 10, children: last.children,
    r2: count.r2, confidence: count.r2, windowMs: last.t - first.t,
    ...(commands.length ? { commands } : {}),
  };
}

/** What a climb of children is made of, where the agent read their command lines: [{command, count, perMin}]. */
export function commandsOf(samples) {
  const read = (s) => (s ? { t: s.t, commands: s.childCommands } : null);
  return childCommands(read(samples.find((s) => s.childCommands)), read(samples.findLast((s) => s.childCommands)));
}
