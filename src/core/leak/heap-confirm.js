// A suspected heap leak, confirmed with full GCs instead of waiting two leak windows. The polled
// post-GC floor only raises a suspicion (a scavenge leaves old-generation garbage behind, so it
// wanders). The heap after a *full* GC is what the app retains: a few of those points, some seconds
// apart, tell a leak (rises steadily) from a sawtooth (flat), a step (one jump), and a warm-up or a
// cache filling to its cap (rises ever slower). Pure: points in, decisions out.
import { growth, lineFit, linearTrend } from '../forecast/trend.js';
import { retainedSites } from '../sites/heap-sites.js';
import { LEAK_KINDS } from '../../constants.js';
import { heapField } from './leak-detector.js';

/**
 * @typedef {object} ConfirmPoint  the heap after one full GC (protocol KIND.CONFIRM reply)
 * @property {number} at  ms @property {number} heapAfter  bytes
 * @property {boolean} forced  false: a full GC the worker ran by itself, reused
 * @property {number|null} pauseMs  the forced GC's pause
 * @property {import('../sites/heap-sites.js').FlatProfile|null} sites
 * @property {string|null} [profiler]  why there are no sites
 * @property {number|null} [externalAfter]  external bytes after the GC, its freed backing stores released
 * @property {import('../sites/heap-sites.js').FlatProfile|null} [buffers]  retained Buffer bytes by site (the Buffer sampler)
 */

export const CONFIRM = Object.freeze({
  spacingMs: 20_000, // between two points of one worker: a leak of 1 MiB/min rises 0.33 MiB in it
  suspectMs: 30_000, // the floor's trend is read over this much history
  suspectMinMs: 15_000, // and needs at least this much of it, from readiness on
  suspect: 0.5, // × leak.minGrowth: the floor's trend that raises a suspicion
  suspectT: 2, // … and the t statistic polled external memory's slope must reach (clearOfNoise)
  gcLookbackMs: 120_000, // the floors read just after a GC, over this much history (survivedGcs)
  busyGcShare: 0.5, // polls over suspectMs that saw a GC: a worker this busy is judged by its major GCs
  points: 4, // points a verdict needs (three intervals: one step cannot pass for a ramp)
  maxPoints: 8, // the verdict reads the newest this many
  r2: 0.9,
  // × leak.minGrowth the fitted rate must reach: over a minute or two of points a leak at exactly
  // minGrowth reads ±10 % (heap-leak-late at 1 MiB/min read 0.96 with its first interval short).
  rate: 0.9,
  interval: 0.25, // each interval must rise at this share of the fitted rate: no plateau, no step
  steady: 0.7, // the newer half must rise at this share of the older half's rate: warm-ups slow down
  stepShare: 1.5, // × the next largest interval's rise: an interval this far above it is a step the steady test leaves out
  refute: 0.25, // × minGrowth: two points rising slower than this end the suspicion
  holdMs: 60_000, // after a suspicion ended, no new one for this long
  // What a leak retains is never released: the polled floor may fall below a point by this much
  // at most (the larger of the two; a natural GC's point is read a moment after it, allocations in).
  fallBytes: 2 * 1024 * 1024,
  fallShare: 0.05,
  // The window rule's heap verdict is refuted by points spanning this long (half a shorter window)
  // that rise at less than this share of its rate (pointsRefute).
  refuteSpanMs: 60_000,
  refuteShare: 0.5,
  budgetMs: 10 * 60_000, // forced GC pauses over this span …
  budgetShare: 0.01, // … may take at most this share of it (6 s in 10 min)
});

const C = CONFIRM;

/**
 * How long before a worker's warm-up hold ends a suspicion may start: time for the points a
 * verdict needs, so that a leak from boot is named as the hold ends. Earlier, a warming worker's
 * rising heap only bought forced full GCs and the sites' profiler on a worker nothing could be
 * said of yet (on a hello world fresh under load, the profiler's cost is ~6 % of its throughput).
 */
export const SUSPECT_LEAD_MS = (C.points - 1) * C.spacingMs + 10_000;

/**
 * @typedef {{since:number|null, heldUntil:number, confirmedAt:number|null, external?:boolean, heap?:boolean, ref?:{at:number, heapAfter:number}|null}} ConfirmState  per
 *   worker, in the policy state; what the episode suspects: external memory (the Buffer sampler runs), the heap (the heap profiler
 *   runs); ref: what its first point is compared with (a busy worker's floor after its last major GC, busyRef; an earlier suspicion's point, earlierPoint)
 */
export const newConfirmState = () => ({ since: null, heldUntil: 0, confirmedAt: null, external: false });

/**
 * What to do about one worker's heap this tick: a confirmation point ('probe'), end a suspicion
 * ('stop'), or nothing (null). Also returns the worker's next ConfirmState.
 * @param {{window: import('../forecast/sample-window.js').SampleWindow, readyAt:number|null, startedAt:number, points?:ConfirmPoint[]}} w
 * @param {ConfirmState} st
 * @param {number} now
 * @param {{minGrowth:number, pollInterval:number, spacingMs?:number, notBefore?:number}} o  notBefore: no suspicion starts
 *   earlier (ms; see SUSPECT_LEAD_MS)
 * @returns {{state: ConfirmState, action: 'probe'|'stop'|null}}
 */
export function confirmStep(w, st, now, { minGrowth, pollInterval, spacingMs = C.spacingMs, notBefore = -Infinity }) {
  const points = episode(w.points, st);
  const last = points.at(-1);
  if (st.since !== null) {
    // Two points that barely rise end it (a flat heap, and external memory), and so does a floor
    // that fell back below a point (a sawtooth): not a leak.
    const prev = points.at(-2) ?? (points.length === 1 && st.ref && last.at - st.ref.at >= C.suspectMinMs ? st.ref : null);
    const over = (field) => (last && prev && !rises(prev, last, field, minGrowth)) || fellBack(points, w.window, field, pollInterval);
    if (over('heapAfter') && !(st.external && !over('externalAfter'))) {
      return { state: { ...newConfirmState(), heldUntil: now + C.holdMs }, action: 'stop' };
    }
    // External growth seen once a heap suspicion runs: the Buffer sampler joins in.
    if (!st.external && !st.confirmedAt && externalSuspected(w, now, minGrowth, pollInterval)) st = { ...st, external: true };
    if (st.heap === false && !st.confirmedAt && heapJoins(points, minGrowth)) st = { ...st, heap: true };
    if (last && now - last.at < Math.max(spacingMs, 2 * pollInterval)) return { state: st, action: null };
    if (!withinBudget(w.points ?? [], now)) return { state: st, action: null };
    return { state: st, action: 'probe' };
  }
  if (now < st.heldUntil || now < notBefore) return { state: st, action: null };
  const heap = suspected(w, now, minGrowth, pollInterval);
  const externalRise = risingFit(w, now, minGrowth, pollInterval, 'external');
  const external = clearRise(externalRise);
  if (!heap && !external) return { state: st, action: null };
  if (!withinBudget(w.points ?? [], now)) return { state: st, action: null };
  // A heap suspicion's first point may end it against a reference (busyRef, earlierPoint) only
  // where external memory is not rising at all, noisily or not, as it was measured on the corpus.
  // The noise gate only decides whether external memory is judged and the Buffer sampler runs: in
  // a corpus run where it also decided this, the busy heap leak was named at 292 s on Node 24
  // (deadline 180; 157 s with the rule as it is).
  const ref = heap && !externalRise ? (busyRef(w, now) ?? earlierPoint(w, now)) : null;
  return { state: { since: now, heldUntil: 0, confirmedAt: null, external, heap, ref }, action: 'probe' };
}

/**
 * Whether the probe confirmStep asks for samples the heap's sites (the sampling profiler, inlining
 * off: what a suspicion costs the worker). Not once the leak is confirmed (the sites are known), nor
 * for external memory alone, nor for a first point that has a reference to be compared with (a busy
 * worker's floor after a major GC, busyRef; an earlier suspicion's point, earlierPoint): the point
 * alone may end the suspicion.
 * @param {ConfirmPoint[]|undefined} points @param {ConfirmState} st
 */
export function samplesSites(points, st) {
  return !st.confirmedAt && st.heap !== false && !(st.ref && episode(points, st).length === 0);
}

/**
 * A busy worker's floor after its newest major GC at least suspectMinMs old, in the lookback, as a
 * point ({at, heapAfter}); null for a quiet worker, or without one. Such a worker is suspected
 * where its old generation's garbage piles up between major GCs (survivedGcs), which only the next
 * major GC tells from a leak: the suspicion's first point is that GC, and compared with this floor
 * it ends the suspicion when flat, as two flat points do, before the sites' profiler has run
 * (bench/RESULTS.md, "overhead-together-busy-majors": a healthy busy worker under bursts of load,
 * suspected with one major GC in its lookback, ran the profiler for 42 s of every 100).
 */
function busyRef(w, now) {
  const f = heapField(w.window.samples);
  if (!AFTER_GC.has(f) || !busy(w.window, now)) return null;
  const ts = w.window.column('t');
  const majors = w.window.column('majorGcCount');
  const vs = w.window.column(f);
  const from = Math.max(1, w.window.indexSince(Math.max(now - C.gcLookbackMs, w.readyAt ?? w.startedAt)));
  for (let i = ts.length - 1; i >= from; i--) {
    if (now - ts[i] >= C.suspectMinMs && majors[i] > majors[i - 1] && vs[i] === vs[i]) return { at: ts[i], heapAfter: vs[i] };
  }
  return null;
}

/**
 * The newest point of an earlier suspicion of this worker, older than a spacing and at most
 * gcLookbackMs old, as a reference for the new suspicion's first point: the heap after a full GC,
 * the exactest floor there is. A healthy worker under bursts of load is suspected again as soon as
 * the hold after a flat suspicion ends (its floors climb between GCs), and each suspicion ran the
 * sites' profiler for a spacing before its second point ended it (bench/RESULTS.md,
 * "overhead-together-vs-old-earlier-point-node26"). A leak rises from that point at its rate.
 */
function earlierPoint(w, now) {
  const points = w.points ?? [];
  const from = w.readyAt ?? w.startedAt;
  for (let i = points.length - 1; i >= 0; i--) {
    const p = points[i];
    if (now - p.at > C.gcLookbackMs || p.at < from) return null;
    // Older than a spacing: not a point of the new episode (episode()), and suspectMinMs old.
    if (p.at < now - Math.max(C.spacingMs, C.suspectMinMs) && typeof p.heapAfter === 'number') return { at: p.at, heapAfter: p.heapAfter };
  }
  return null;
}

// Whether a field rose between two points at `share` × minGrowth or faster (the refute rate unless
// given); a point without it did not.
function rises(a, b, field, minGrowth, share = C.refute) {
  if (typeof a[field] !== 'number' || typeof b[field] !== 'number') return false;
  return (b[field] - a[field]) / ((b.at - a.at) / 1000) >= share * minGrowth;
}

/**
 * Whether the heap joins a running external suspicion (the sites' profiler starts): its last two
 * points, each the heap after forced full GCs, rose at the suspicion rate. Not the polled floor:
 * each point's forced GCs leave the lowest floor there is, and the floors after the worker's own
 * major GCs that follow stand above it however flat the heap. An express app under load had its
 * heap join so each external suspicion that went past its first point, and ran the profiler to the
 * fourth point (docs/leaks.md, "Buffers").
 */
const heapJoins = (points, minGrowth) => points.length >= 2 && rises(points.at(-2), points.at(-1), 'heapAfter', minGrowth, C.suspect);

/** Whether the heap floor's rise raises a suspicion. */
const suspected = (w, now, minGrowth, pollInterval) => risingFit(w, now, minGrowth, pollInterval, heapField(w.window.samples)) !== null;

/** The fit of `field`'s rise over the last suspectMs when it crosses the suspicion rate, else null. */
function risingFit(w, now, minGrowth, pollInterval, f) {
  const since = Math.max(now - C.suspectMs, (w.readyAt ?? w.startedAt) + 2 * pollInterval);
  if (now - since < C.suspectMinMs) return null;
  // The GC check first: a worker with no GC for suspectMs (most idle ones, most polls) needs no fit.
  if (AFTER_GC.has(f) && !survivedGcs(w.window, f, Math.max(now - C.gcLookbackMs, w.readyAt ?? w.startedAt), now, minGrowth)) return null;
  const g = growth(w.window, f, { now, windowMs: now - since, bucketMs: Math.max(2 * pollInterval, 5000) });
  return g === null || g.spanMs < C.suspectMinMs || g.perSec < C.suspect * minGrowth ? null : g;
}

/**
 * Whether polled external memory's fitted rise stands clear of its scatter: the slope at least
 * suspectT standard errors above zero, t² = r²·(n − 2) / (1 − r²) over the n bucket minima (with 6
 * buckets, r² ≥ 0.5). A busy express app's external memory wanders by up to a megabyte with its
 * socket buffers, and a 30 s fit of that crossed the suspicion rate on noise: most of its
 * suspicions came from fits with r² under 0.5, each paid with forced full GCs and the Buffer
 * sampler, each ending flat. A Buffer or zlib leak climbs bucket after bucket (named as soon with
 * the gate on Node 22, 24 and 26). Not the heap floor: a busy worker's floor saws between major GCs
 * with a leak in it too (in a corpus run with the gate on it, the busy heap leak was named at 271 s on
 * Node 24, 153-157 s in the runs before), and busy workers' heap suspicions have their own check (busyRef).
 * @param {{r2:number, n:number}} g
 */
export function clearOfNoise({ r2, n }) {
  return r2 >= 1 || r2 * (n - 2) >= C.suspectT ** 2 * (1 - r2);
}

// The fields whose rise must show across GCs to raise a suspicion (survivedGcs). Not external
// memory: on Node 26 that held a Buffer leak's suspicion back ~50 s under a short warm-up hold.
const AFTER_GC = new Set(['heapFloor']);

/**
 * Whether `field` (one of AFTER_GC) rose across GCs. Between two collections nothing is freed,
 * so a quiet worker's heap floor climbs with whatever it allocates (its own poll replies
 * included) until the next one: an idle worker drew a suspicion every minute or two, each ending
 * flat, each paid with forced full GCs and the sites' profiler. A value read just after a GC (the
 * poll whose GC count moved) says what survived it. The newest of those must be recent (a GC
 * within suspectMs) and above the lowest one before it, at the suspect rate: a leak's survivors
 * pile up, a sawtooth's ramp rises too (the trend then judges it, as before), memory no GC has
 * touched says nothing yet. Without GC counts (an agent that does not send them) the trend alone
 * decides.
 *
 * A busy worker collects on nearly every poll, and a scavenge leaves the old generation's garbage
 * in place: its floors after scavenges climb between major GCs however healthy it is. A healthy
 * hello world under load drew a suspicion as soon as the warm-up let it, and again after every
 * hold, and ran the sites' profiler about 40 % of the time (bench/RESULTS.md, "overhead-together").
 * So where two major GCs in the lookback, at least suspectMinMs apart, can judge, only the floors
 * read after those count (majorsRise): on a busy worker (a GC in at least busyGcShare of the polls
 * over suspectMs) however long ago the newest was (a hello world under load collected its old
 * generation every 30–40 s, the floors after it falling; a busy worker's leak brings its major
 * GCs on), on any other where the newest came within suspectMs (an express app under bursts of
 * load collected its old generation every 1–14 s: test/fixtures/series/real-express-bursts.json).
 * Otherwise every GC counts, as it always did for quiet workers, whose floors it was made for.
 * Read from the window's columns (NaN where a sample has no value), as the trend maths are: it
 * runs for every judged worker on every tick.
 * @param {import('../forecast/sample-window.js').SampleWindow} window @param {string} field
 * @param {number} since  the history read @param {number} now @param {number} minGrowth
 */
export function survivedGcs(window, field, since, now, minGrowth) {
  return majorsRise(window, field, since, now, minGrowth, busy(window, now) ? Infinity : C.suspectMs)
    ?? risenAfter(window, 'gcCount', field, since, now, minGrowth, { recentMs: C.suspectMs, strict: true });
}

/**
 * survivedGcs by the floors read after major GCs since `since`: null where they cannot judge (fewer
 * than two, spanning less than suspectMinMs, the newest older than recentMs). Two: the rise between
 * them. More: their least-squares slope, and only where it stands clear of their scatter
 * (clearOfNoise). A worker's own major GC reads 0.1-2.8 MiB above a forced one (docs/leaks.md), so
 * the newest such floor compared with the lowest before it rose at the suspect rate on a flat heap:
 * a healthy express app under bursts of load (test/fixtures/series/real-express-bursts.json) could
 * start a heap suspicion at 70 polls past the warm-up, each paid with forced full GCs and the
 * sites' profiler. A leak's floors climb major GC after major GC, clear of that scatter.
 * @param {number} recentMs  how old the newest major GC's floor may be
 */
function majorsRise(window, field, since, now, minGrowth, recentMs) {
  const ts = window.column('t');
  const majors = window.column('majorGcCount');
  const vs = window.column(field);
  const afterMajor = (i) => majors[i] > majors[i - 1] && vs[i] === vs[i];
  const from = Math.max(1, window.indexSince(since));
  // The newest first, searched back no further than recentMs: a worker with no recent major GC
  // (most of an idle fleet, every tick) reads only that much of its window.
  let last = -1;
  for (let i = ts.length - 1; i >= from && now - ts[i] <= recentMs; i--) {
    if (afterMajor(i)) { last = i; break; }
  }
  if (last < 0) return null;
  let first = -1;
  let n = 0;
  for (let i = from; i <= last; i++) {
    if (!afterMajor(i)) continue;
    if (first < 0) first = i;
    n++;
  }
  if (n < 2 || ts[last] - ts[first] < C.suspectMinMs) return null;
  const rate = C.suspect * minGrowth;
  if (n === 2) return (vs[last] - vs[first]) / ((ts[last] - ts[first]) / 1000) >= rate;
  const fit = lineFit(ts, vs, first, afterMajor);
  return fit !== null && fit.slope >= rate && clearOfNoise(fit);
}

/** Whether GCs came in at least busyGcShare of the polls over suspectMs (polls with both counts). */
function busy(window, now) {
  const gcs = window.column('gcCount');
  let polls = 0;
  let withGc = 0;
  for (let i = window.indexSince(now - C.suspectMs) + 1; i < gcs.length; i++) {
    if (Number.isNaN(gcs[i]) || Number.isNaN(gcs[i - 1])) continue;
    polls++;
    if (gcs[i] > gcs[i - 1]) withGc++;
  }
  return polls > 0 && withGc >= C.busyGcShare * polls;
}

/**
 * survivedGcs by one GC counter: true or false, or null where the counter cannot judge (no counted
 * sample; unless `strict`, also no GC of that kind within `recentMs`, or none early enough to compare).
 * @param {{recentMs: number, strict: boolean}} o  recentMs: how old the newest GC's floor may be;
 *   strict: a want of GCs to compare is false, not null
 */
function risenAfter(window, counter, field, since, now, minGrowth, { recentMs, strict }) {
  const ts = window.column('t');
  const gcs = window.column(counter);
  const vs = window.column(field);
  const from = Math.max(1, window.indexSince(since));
  // A GC count compared with NaN is false: a poll without both counts is no GC, and a floor
  // equal to itself is one the poll has.
  const afterGc = (i) => gcs[i] > gcs[i - 1] && vs[i] === vs[i];
  const undecided = strict ? false : null;
  // The newest floor read after a GC, searched from the newest sample back: once a counted sample
  // is older than recentMs, none older can be recent enough, so an idle worker stops there.
  let newest = -1;
  let anyCounted = false;
  for (let i = ts.length - 1; i >= from && newest < 0; i--) {
    if (Number.isNaN(gcs[i]) || Number.isNaN(gcs[i - 1])) continue;
    anyCounted = true;
    if (now - ts[i] > recentMs) return undecided;
    if (afterGc(i)) newest = i;
  }
  if (!anyCounted) return strict ? true : null;
  if (newest < 0) return undecided;
  const lastT = ts[newest];
  let low = -1;
  for (let i = from; i < newest; i++) {
    if (afterGc(i) && ts[i] <= lastT - C.suspectMinMs && (low < 0 || vs[i] < vs[low])) low = i;
  }
  if (low < 0) return undecided;
  return (vs[newest] - vs[low]) / ((lastT - ts[low]) / 1000) >= C.suspect * minGrowth;
}

// Polled external memory only raises a suspicion: on Node 24+ short-lived Buffers may wait for a
// major GC, so it saws upward without a leak. The judgement is on points after a full GC.
const externalSuspected = (w, now, minGrowth, pollInterval) => clearRise(risingFit(w, now, minGrowth, pollInterval, 'external'));

/** Whether external memory's rising fit (risingFit, or null) raises a suspicion: one clear of its noise. */
const clearRise = (g) => g !== null && clearOfNoise(g);

function withinBudget(points, now) {
  let spent = 0;
  for (const p of points) if (p.forced && now - p.at <= C.budgetMs) spent += p.pauseMs ?? 0;
  return spent < C.budgetShare * C.budgetMs;
}

const POLLED = { externalAfter: 'external' };

/**
 * Whether the polled memory fell back well below a point after it was taken. A leak's points rise
 * because what it retains is never let go, so nothing polled later reads much lower. A sawtooth's
 * full GCs can land on ever higher parts of its ramps (points 20 s apart on a 4 s period drift in
 * phase; V8's own GCs fire at heaps that climb with its limit) and rise as steadily as a leak, yet
 * its floor drops back to the base every period: on Node 22 and 24 that drew a heap verdict about
 * one 30-minute run in two. Polled values only ever over-read what is retained (a scavenge leaves
 * old garbage; external memory waits for a major GC), so a fall is evidence and a rise is not.
 * @param {ConfirmPoint[]} points @param {import('../forecast/sample-window.js').SampleWindow|undefined} window
 * @param {'heapAfter'|'externalAfter'} field @param {number} pollInterval  a sample's floor may be
 *   from up to one poll before it
 */
export function fellBack(points, window, field, pollInterval) {
  const pts = points.filter((p) => typeof p[field] === 'number');
  if (!window || !pts.length) return false;
  const polled = field === 'heapAfter' ? heapField(window.samples) : POLLED[field];
  const series = window.series(polled, pts[0].at + pollInterval + 1);
  let low = Infinity;
  let j = series.length - 1;
  for (let i = pts.length - 1; i >= 0; i--) {
    const from = pts[i].at + pollInterval;
    for (; j >= 0 && series[j][0] > from; j--) low = Math.min(low, series[j][1]);
    const v = pts[i][field];
    if (low < v - Math.max(C.fallBytes, C.fallShare * v)) return true;
  }
  return false;
}

/**
 * Whether the heap after full GCs contradicts a heap or unexplained-RSS verdict of the window rule.
 * That rule fits polled floors, and where evicted entries pile up as old garbage between ever rarer
 * major GCs (an LRU at its cap), the floor's minima rise while the live heap is flat: on Node 24 it
 * named such a cache as a heap leak at 696 s, and the RSS V8 grew to hold that garbage at 658 s, in
 * two 30-minute runs of three. The suspicions that floor raised had taken points by then, and they
 * were flat. Only points are evidence here: with too few of them the verdict stands.
 * @param {ConfirmPoint[]} points @param {{kind:string, partGrowthBytesPerSec:number, windowMs:number}} found
 * @param {number} now @param {number} minGrowth
 */
export function pointsRefute(points, found, now, minGrowth) {
  if (found.kind !== LEAK_KINDS.HEAP && found.kind !== LEAK_KINDS.RSS) return false;
  const pts = points.filter((p) => p.at >= now - found.windowMs && typeof p.heapAfter === 'number');
  if (pts.length < 2 || pts.at(-1).at - pts[0].at < Math.min(C.refuteSpanMs, found.windowMs / 2)) return false;
  const fit = pts.length >= 3 ? linearTrend(pts.map((p) => [p.at, p.heapAfter])) : null;
  const slope = fit ? fit.slope : (pts[1].heapAfter - pts[0].heapAfter) / ((pts[1].at - pts[0].at) / 1000);
  // A heap verdict stands on the heap's own rate; an RSS one on the heap not leaking at all.
  const rate = found.kind === LEAK_KINDS.HEAP ? found.partGrowthBytesPerSec : minGrowth;
  return slope < C.refuteShare * rate;
}

/** The points of the current suspicion only. */
export function episode(points, st) {
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
 * @param {{window?: import('../forecast/sample-window.js').SampleWindow, pollInterval?: number}} [polled]  the worker's
 *   samples: a floor that fell back below a point refutes it
 */
export function confirmedLeak(allPoints, st, minGrowth, polled = {}) {
  const found = confirmedRise(allPoints, st, { kind: LEAK_KINDS.HEAP, field: 'heapAfter', profile: 'sites', minGrowth, ...polled });
  if (!found) return null;
  const { last, confirm, ...verdict } = found;
  return { ...verdict, sitesUnavailable: last.profiler ?? null, heapAfterGc: last.heapAfter, confirm };
}

/**
 * What a heap and an external verdict share: the current suspicion's points fitted on `field`
 * (heapAfter, externalAfter) and not refuted by the samples polled since (`window`), the sites
 * retained between the first and the last point that carry a `profile` (sites, buffers), and the
 * summary of the GCs taken. `last` is the newest point.
 */
export function confirmedRise(allPoints, st, { kind, field, profile, minGrowth, window, pollInterval = 1000 }) {
  const points = episode(allPoints, st).slice(-C.maxPoints);
  const fit = steadyRise(points, field, minGrowth);
  if (!fit || fellBack(points, window, field, pollInterval)) return null;
  const first = points.find((p) => p[profile]);
  const last = points.findLast((p) => p[profile]);
  return {
    kind,
    field: `${field}Gc`,
    growthBytesPerSec: fit.slope,
    r2: fit.r2,
    confidence: fit.r2,
    windowMs: points.at(-1).at - points[0].at,
    sites: first && last && first !== last ? retainedSites(first[profile], last[profile], last.at - first.at) : null,
    confirm: confirmSummary(points),
    last: points.at(-1),
  };
}

/**
 * The fit of a field over the points when it rises as a leak does (enough points, the rate, r²,
 * each interval rising, the newer half not slower than the older), else null.
 * @param {ConfirmPoint[]} points @param {string} field @param {number} minGrowth
 */
export function steadyRise(points, field, minGrowth) {
  const pts = points.filter((p) => typeof p[field] === 'number');
  if (pts.length < C.points) return null;
  const fit = linearTrend(pts.map((p) => [p.at, p[field]]));
  if (!fit || fit.slope < C.rate * minGrowth || fit.r2 < C.r2) return null;
  const rate = (a, b) => (b[field] - a[field]) / ((b.at - a.at) / 1000);
  for (let i = 1; i < pts.length; i++) if (rate(pts[i - 1], pts[i]) < C.interval * fit.slope) return null;
  const even = withoutStep(pts, field);
  const half = even.length >> 1;
  if (rate(even[even.length - 1 - half], even.at(-1)) < C.steady * rate(even[0], even[half])) return null;
  return fit;
}

/**
 * The points with one outlying interval (1.5× the next largest or more) brought down to the median
 * interval's rise, where there are halves that do not overlap (four intervals or more): what the
 * steady test reads. A Map or an object used as a cache grows its hash table by doubling, so a leak
 * into one rises in even intervals but for a jump at each doubling (memoizee's cache under plain
 * node, after a full GC every 20 s: +0.83 to +0.87 MiB an interval, and +1.60, then +2.34). A jump
 * in the older half made the newer half read slower, as a warm-up does, and the leak waited a point
 * or two more (named at 183–184 s, its deadline 180). A warm-up's intervals shrink one after
 * another, so its largest is 1.5× the next only where each shrinks by a third or more, and brought
 * down it still fails.
 */
export function withoutStep(pts, field) {
  if (pts.length < 5) return pts;
  const rises = pts.slice(1).map((p, i) => p[field] - pts[i][field]);
  const sorted = [...rises].sort((a, b) => a - b);
  const median = sorted[rises.length >> 1];
  const big = rises.indexOf(sorted.at(-1));
  if (!(median > 0) || sorted.at(-1) < C.stepShare * sorted.at(-2)) return pts;
  const excess = rises[big] - median;
  return pts.map((p, i) => (i > big ? { ...p, [field]: p[field] - excess } : p));
}

/** How the points were taken: how many, how many GCs forced, their pauses. */
export function confirmSummary(points) {
  const forced = points.filter((p) => p.forced);
  return {
    points: points.length,
    forcedGcs: forced.length,
    maxPauseMs: forced.length ? Math.max(...forced.map((p) => p.pauseMs ?? 0)) : null,
    pauseMs: Math.round(forced.reduce((a, p) => a + (p.pauseMs ?? 0), 0) * 10) / 10,
  };
}
