// What a worker recycled for memory retained, from its own samples: which part of it grew (heap,
// external, native, children) and how fast its whole tree filled, per minute, from readiness to
// its last sample. Pure. The sites come from the agent (read at the decision); this is the rest.
import { LEAK_KINDS } from '../../constants.js';
import { memoryOf } from '../forecast/memory-of.js';
import { risingAtEverySample, msToLimit } from '../forecast/rising.js';
import { newestValue } from '../forecast/trend.js';

// The parts partition the tree's RSS, so the heap's is the heap RSS holds (heapPhysical): a fast
// leak's young generation and garbage between major GCs are heap too, and measured by heapUsed
// alone they left the heap explaining less than half of a heap leak's RSS. heapUsed stands in
// where an agent did not report heapPhysical.
const PARTS = [[LEAK_KINDS.HEAP, 'heapPhysical', 'heapUsed'], [LEAK_KINDS.EXTERNAL, 'external'], [LEAK_KINDS.NATIVE, 'native'], [LEAK_KINDS.CHILDREN, 'childrenRss']];
// Below this a worker's life says nothing about a rate: start-up noise. A worker filling that
// fast is polled every 200 ms (hot-poll.js), so a second of its life is several samples.
const MIN_SPAN_MS = 1000;
const MIN_SAMPLES = 3;

/**
 * {kind, bytesPerMin} of a worker's life, or null when its samples do not span enough of it.
 * @param {import('../forecast/sample-window.js').SampleWindow} window
 * @param {number|null} readyAt
 */
export function retainedOf(window, readyAt) {
  const s = window.samples;
  const from = window.indexSince((readyAt ?? -Infinity) + 500);
  const first = s[from];
  const last = s[s.length - 1];
  if (!first || !last || last.t - first.t < MIN_SPAN_MS || s.length - from < MIN_SAMPLES) return null;
  const a = memoryOf(first);
  const b = memoryOf(last);
  if (a === null || b === null) return null;
  let kind = LEAK_KINDS.RSS;
  let most = 0;
  for (const [k, ...fields] of PARTS) {
    // The newest sample may lack the agent's fields (its reply came late, the worker busy with the
    // full GC before the recycle): each part is read from its own newest value.
    const grew = growthOf(s, from, fields);
    if (grew === null) continue;
    if (grew > most) { most = grew; kind = k; }
  }
  // A part names the growth only when it explains most of it; otherwise it is the tree's.
  if (most < 0.5 * (b - a)) kind = LEAK_KINDS.RSS;
  return { kind, bytesPerMin: Math.round(((b - a) / (last.t - first.t)) * 60_000) };
}

/** How much the first of `fields` that the window's first sample and a later one hold grew, or null. */
function growthOf(s, from, fields) {
  for (const field of fields) {
    const end = newestValue(s, field, from);
    if (s[from][field] != null && end !== null) return end - s[from][field];
  }
  return null;
}

/**
 * True when a young worker fills toward `limit` fast enough to reach it within `withinMs` at its
 * rate over its last samples (three at least, each higher than the one before): a fast leak, worth
 * naming before its first recycle comes.
 */
export function fillsFast(window, limit, now, { withinMs = 60_000, recentMs = 5000 } = {}) {
  if (!(limit > 0)) return false;
  const points = window.series('treeRss', now - recentMs);
  const perMs = risingAtEverySample(points);
  if (perMs === null) return false;
  const ms = msToLimit(points[points.length - 1][1], perMs, limit);
  return ms !== null && ms <= withinMs;
}

/**
 * The slot's story across its workers: its last memory recycles (newest last) that filled at about
 * the same rate (within ±35 % of the newest), with the site most of them named. Null under two.
 * @param {{at:number, kind:string, bytesPerMin:number|null, sites:object[]|null}[]} recycles
 */
export function sameRateStreak(recycles) {
  const last = recycles[recycles.length - 1];
  if (!last?.bytesPerMin || last.bytesPerMin <= 0) return null;
  let n = 0;
  for (let i = recycles.length - 1; i >= 0; i--) {
    const r = recycles[i];
    if (!r.bytesPerMin || r.kind !== last.kind || Math.abs(r.bytesPerMin - last.bytesPerMin) > 0.35 * last.bytesPerMin) break;
    n++;
  }
  if (n < 2) return null;
  const streak = recycles.slice(-n);
  const mean = Math.round(streak.reduce((x, r) => x + r.bytesPerMin, 0) / n);
  const sites = streak.findLast((r) => r.sites?.length)?.sites ?? null;
  return { workers: n, kind: last.kind, bytesPerMin: mean, sites };
}
