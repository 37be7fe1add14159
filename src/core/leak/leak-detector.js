// Leak verdicts from a worker's history. A leak is a baseline that keeps rising, steadily, for a
// whole window, while the process tree's RSS rises with it. What is not a leak: a GC sawtooth (we
// fit bucket minima, i.e. the post-GC baseline), a big allocation that is freed (one bucket out of
// line: low r2, one huge jump), a single step (one jump carries the whole rise: see detectStep),
// a warm-up (growth that slows down), and heap that grows into pages the process holds (RSS flat).

import { LEAK_KINDS } from '../../constants.js';
import { growth, levelShift, projectTimeToLimit, windowBaseline, firstIndexSince, newestValue } from '../forecast/trend.js';
import { commandsOf } from './children-trend.js';

/** @typedef {import('../forecast/sample-window.js').SampleWindow} SampleWindow */

/** The bars a growth series must clear to be called a leak; exported so tests and docs quote them. */
export const LEAK_THRESHOLDS = Object.freeze({
  coverage: 0.9, // share of leak.window the history must span: a young worker's warm-up is not a leak
  buckets: 12, // target bucket count: enough points for a fit, wide enough buckets to hold a GC cycle
  minBuckets: 6, // fewer buckets than this and there is no trend to speak of
  r2: 0.8, // a straight line must explain the baseline; a centred pure step tops out at 0.75
  rising: 0.75, // share of bucket steps that did not fall by more than one bucket's fitted growth
  jumpShare: 0.5, // no single bucket step may carry more than this share of the fitted rise
  recent: 0.5, // the newest half must still grow at this share of the window's rate: warm-up slows down
  confirm: 0.5, // tree RSS must grow at least this share of minGrowth, or nothing is lost yet
  attribute: 0.5, // a part must explain this share of the RSS growth to be named as the kind
  minRise: 0.01, // the tree must grow by this share of its size over the window: slow creep is not a leak
  warmup: 1, // × leak.window after startedAt that is not judged: caches, JIT and pools fill up first
  // ms of age before native memory or unexplained RSS can be named: V8 sizes its heap and malloc
  // settles over a process's first minutes (bare node under light load, no nodesup: RSS 53 → 66 MiB
  // in 4 min, native creeping 2 MiB/min at 2–4 min). Heap after GC, external and children are
  // measured exactly and need only the warm-up above.
  settleMs: 5 * 60_000,
  // × leak.minGrowth that native memory, or RSS no part explains, must grow at to be named. Both are
  // what is left of RSS once V8's heap and external memory are taken out, and a healthy process's
  // allocators keep creeping there long after it settled: 1.1 MiB/min on Node 24 (hidden-healthy),
  // 1.4 on Node 26 (buffer-churn), for 5 minutes past its 6th minute, steadily enough to pass every
  // other rule at the default 1 MiB/min.
  nativeRate: 2,
});

// The parts of a process tree's memory, in the order they are preferred on a tie.
const PARTS = [[LEAK_KINDS.HEAP, 'heapUsed'], [LEAK_KINDS.EXTERNAL, 'external'], [LEAK_KINDS.CHILDREN, 'childrenRss'], [LEAK_KINDS.NATIVE, 'native']];
const PARTS_FLOOR = [[LEAK_KINDS.HEAP, 'heapFloor'], ...PARTS.slice(1)];

/**
 * The heap field a series is judged on: the agent's post-GC floor where it reports one (bucket
 * minima of polled heapUsed alias against a GC cycle near the poll period), else heapUsed.
 */
export function heapField(samples) {
  const last = samples.at(-1);
  return last?.heapFloor !== null && last?.heapFloor !== undefined ? 'heapFloor' : 'heapUsed';
}

const partsOf = (samples) => (heapField(samples) === 'heapFloor' ? PARTS_FLOOR : PARTS);

const T = LEAK_THRESHOLDS;

// treeRss when the probe sees the tree, else the worker's own rss: one field for the whole series,
// since mixing them would invent a step the size of the children.
function totalField(samples) {
  for (let i = samples.length - 1; i >= 0; i--) {
    if (samples[i].treeRss !== null && samples[i].treeRss !== undefined) return 'treeRss';
    if (samples[i].rss !== null && samples[i].rss !== undefined) return 'rss';
  }
  return 'treeRss';
}

function leakShaped(g, minGrowth) {
  return g !== null && g.n >= T.minBuckets && g.coverage >= T.coverage && g.perSec >= minGrowth
    && g.r2 >= T.r2 && g.rising >= T.rising && g.jumpShare <= T.jumpShare && g.recentPerSec >= T.recent * g.perSec;
}

// The largest fall of a field since `since`: from a peak to the lowest value after it.
function largestFall(samples, field, since) {
  let peak = -Infinity;
  let fall = 0;
  for (let i = firstIndexSince(samples, since); i < samples.length; i++) {
    const v = samples[i][field];
    if (v === null || v === undefined) continue;
    if (v > peak) peak = v;
    else if (peak - v > fall) fall = peak - v;
  }
  return fall;
}

function minOrNull(a, b) {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/**
 * @typedef {object} LeakOpts
 * @property {import('../../types.js').LeakConfig|false} leak
 * @property {import('../../types.js').Limits} limits
 * @property {number} now
 * @property {number} [pollInterval]  ms; buckets are at least two polls wide
 * @property {number|null} [startedAt]  ms, when the worker started; without it, warm-up can look like a leak
 */

/**
 * A leak verdict for one worker, or null:
 * { kind, field, growthBytesPerSec, r2, projectedLimitInSec, windowMs, confidence }.
 * @param {SampleWindow} window
 * @param {LeakOpts} opts
 */
export function detectLeak(window, { leak, limits, now, pollInterval = 1000, startedAt = null }) {
  if (!leak || !window || window.size < 2) return null;
  const windowMs = leak.window;
  const samples = window.samples;
  // The cheap gates first: most workers on most polls stop here. A warm-up that saturates (τ of a
  // minute or two) grows faster than minGrowth for a whole window; only the worker's age tells it apart.
  if (now - samples[0].t < T.coverage * windowMs) return null;
  if (startedAt !== null && now - startedAt < (T.warmup + T.coverage) * windowMs) return null;
  const bucketMs = Math.max(windowMs / T.buckets, 2 * pollInterval);
  if (windowMs / bucketMs < T.minBuckets) return null;
  const opts = { now, windowMs, bucketMs };
  const tf = totalField(samples);
  const total = growth(window, tf, opts);
  if (!total || total.coverage < T.coverage || total.perSec < T.confirm * leak.minGrowth) return null;
  if (total.perSec * (windowMs / 1000) < T.minRise * total.last) return null;

  // The verdict stands on a leak-shaped series: a part's, or the whole tree's. `kind` names the part
  // that explains most of the growth; field, growthBytesPerSec and r2 describe that part's baseline.
  let shaped = null;
  let largest = null;
  for (const [kind, field] of partsOf(samples)) {
    const g = growth(window, field, opts);
    if (!g) continue;
    const p = { kind, field, g };
    if (!largest || g.perSec > largest.g.perSec) largest = p;
    if (leakShaped(g, leak.minGrowth) && (!shaped || g.perSec > shaped.g.perSec)) shaped = p;
  }
  const explains = (p) => p !== null && p.g.perSec >= T.attribute * total.perSec;
  let named;
  let basis;
  if (leakShaped(total, leak.minGrowth)) {
    named = explains(shaped) ? shaped : explains(largest) ? largest : { kind: LEAK_KINDS.RSS, field: tf, g: total };
    basis = named === shaped ? shaped.g : total;
    // RSS rising with heapTotal while no part (heapUsed included) explains it is V8 keeping freed
    // pages (docs/incidents.md, incident 2): a full GC or the rss limit deals with it, detectStep and advice report it.
    if (named.kind === LEAK_KINDS.RSS && explains({ g: growth(window, 'heapTotal', opts) ?? { perSec: -Infinity } })) return null;
  } else if (shaped && explains(shaped)) {
    // A leak-shaped part must also account for the tree's growth: a part's noise is not a leak.
    named = shaped; basis = shaped.g;
  } else {
    return null;
  }
  const { kind, field, g: signal } = named;
  const residual = kind === LEAK_KINDS.NATIVE || kind === LEAK_KINDS.RSS;
  if (residual && startedAt !== null && now - startedAt < T.settleMs) return null;
  if (residual && signal.perSec < T.nativeRate * leak.minGrowth) return null;
  // Native memory, or RSS no part explains, that rose by no more than V8 gave back over the window
  // (heapTotal's largest fall from a peak) may be V8's own pages, still resident after it shrank the
  // heap: on Node 24 a healthy app's bursts (heapTotal 174 → 11 MiB) left native creeping 4.5 MiB/min
  // for minutes (test/fixtures/series/real-node24-*.json), and with native vetoed the same cache
  // app's RSS was named instead. Named once it rises past what V8 released. The fall is read
  // anywhere in the window, not down to the newest sample: a verdict reached mid-burst, the heap
  // grown back, had nothing to weigh it against and named a healthy app at 12 minutes.
  if (residual && signal.perSec * (windowMs / 1000) <= largestFall(samples, 'heapTotal', now - windowMs)) return null;

  // The nearest limit this growth runs into: the tree's rss limit, or the part's own.
  const partLimit = kind === LEAK_KINDS.HEAP ? limits?.heapUsed : kind === LEAK_KINDS.NATIVE ? limits?.native : null;
  const projected = minOrNull(
    projectTimeToLimit(newestValue(samples, tf), total.perSec, limits?.rss ?? null),
    projectTimeToLimit(newestValue(samples, field), signal.perSec, partLimit ?? null),
  );

  return {
    kind,
    field,
    // The rate the verdict rests on (the tree's when a part is only named), so value ≥ limit holds.
    growthBytesPerSec: basis.perSec,
    partGrowthBytesPerSec: signal.perSec,
    r2: basis.r2,
    projectedLimitInSec: projected,
    windowMs,
    confidence: basis.r2 * basis.rising,
    ...(kind === 'children' ? childrenOf(samples, now - windowMs) : {}),
  };
}

// The children's commands over the window, where the agent read them: what the leak is made of.
function childrenOf(samples, since) {
  const list = commandsOf(samples.slice(firstIndexSince(samples, since)));
  return list.length ? { commands: list } : {};
}

export const STEP_THRESHOLDS = Object.freeze({
  minBytes: 32 * 1024 * 1024, // below this a level change is noise to a person reading `inspect`
  explained: 0.9, // two levels must explain the bucket minima (after dropping one outlier)
  flat: 0.25, // each level's range must stay within this share of the step: a ramp is a leak, not a step
  stay: 3, // buckets the new level must be seen in: a held allocation is not yet a step
  vsLine: 0.5, // two levels must fit at least twice as well as a straight line, or it is a ramp
});

/**
 * A one-off rise in the baseline within the window (incident 2's stuck RSS, docs/incidents.md), or null:
 * { field, stepBytes, at, from, to }. Only rises are reported. For status/inspect, not for recycling.
 * @param {SampleWindow} window
 * @param {{now:number, windowMs:number, bucketMs?:number, minBytes?:number}} opts
 */
export function detectStep(window, { now, windowMs, bucketMs = windowMs / T.buckets, minBytes = STEP_THRESHOLDS.minBytes }) {
  if (!window || window.size < 2) return null;
  const tf = totalField(window.samples);
  const found = {};
  const parts = partsOf(window.samples);
  for (const field of [tf, ...parts.map(([, f]) => f)]) {
    // The two levels are means of some of the field's values in the window, so a step is never
    // wider than their spread: a worker whose memory held within minBytes (nearly every worker, on
    // nearly every look) is passed over without its bucket minima and their fits. The byte of
    // margin covers the fits' rounding.
    if (spreadSince(window, field, now - windowMs) < minBytes - 1) continue;
    const fit = levelShift(windowBaseline(window, field, { now, windowMs, bucketMs }), STEP_THRESHOLDS.stay);
    if (!fit) continue;
    const stepBytes = fit.after - fit.before;
    if (stepBytes < minBytes || fit.explained < STEP_THRESHOLDS.explained) continue;
    if (fit.spread > STEP_THRESHOLDS.flat * stepBytes) continue;
    if (fit.vsLine > STEP_THRESHOLDS.vsLine) continue;
    found[field] = { field, stepBytes, at: stepTime(window.samples, field, fit), from: fit.before, to: fit.after };
  }
  // Name the part that stepped when it explains most of the total's step, as detectLeak does.
  let part = null;
  for (const [, f] of parts) if (found[f] && (!part || found[f].stepBytes > part.stepBytes)) part = found[f];
  const whole = found[tf] ?? null;
  if (whole && part && part.stepBytes >= T.attribute * whole.stepBytes) return part;
  return whole ?? part;
}

// Largest minus smallest value of field among the samples with t >= since (-Infinity: none).
function spreadSince(window, field, since) {
  const values = window.column(field);
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = window.indexSince(since); i < values.length; i++) {
    const v = values[i];
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return hi - lo;
}

// When the level changed: the first raw sample after the last one still below the midpoint.
function stepTime(samples, field, fit) {
  const mid = (fit.before + fit.after) / 2;
  const lo = fit.points[fit.s - 1][0];
  const hi = fit.points[fit.s][0];
  let at = hi;
  for (let i = firstIndexSince(samples, hi + 1) - 1; i >= 0 && samples[i].t >= lo; i--) {
    const v = samples[i][field];
    if (v === null || v === undefined) continue;
    if (v < mid) break;
    at = samples[i].t;
  }
  return at;
}
