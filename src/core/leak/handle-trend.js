// Sockets, timers and fds that are opened and never closed (docs/incidents.md, incident 5), named by their trend rather
// than past a fixed count: a leak that plateaus at 256 sockets is still a leak while it climbs.
// Pure: a worker's samples in (per-type counts from process.getActiveResourcesInfo(), and fds),
// a verdict out, worded by report/resource-words.js.
import { linearTrend } from '../forecast/trend.js';
import { LEAK_KINDS } from '../../constants.js';
import { growingFdKinds } from '../sites/fd-kinds.js';

export const HANDLE_THRESHOLDS = Object.freeze({
  windowMs: 30_000, // the rise must hold this long: a burst of connections comes and goes sooner
  minSpanMs: 25_000,
  minPerSec: 0.5, // a type must grow at least this fast (30 a minute) …
  minRise: 20, // … and by this many over the window
  r2: 0.9, // a straight climb, not load going up and down
  atTop: 0.9, // the newest count must be near the highest: still climbing, not after a burst
});

const H = HANDLE_THRESHOLDS;

/**
 * A handle leak in one worker, or null: { kind:'handles', growthPerSec (sum over the growing types),
 * types: [{type, perSec, count}], r2 }. `fds` is one of the types, as "fd".
 * @param {import('../forecast/sample-window.js').SampleWindow} window
 * @param {{now:number, startedAt:number|null}} o
 */
export function detectHandleLeak(window, { now, startedAt = null }) {
  const since = Math.max(now - H.windowMs, startedAt ?? -Infinity);
  const samples = window.since ? window.since(since) : window.samples.filter((s) => s.t >= since);
  if (samples.length < 5 || samples.at(-1).t - samples[0].t < H.minSpanMs) return null;
  if (noRise(samples[0], samples.at(-1))) return null;
  const series = new Map();
  for (const s of samples) {
    for (const [type, n] of Object.entries(s.resources ?? {})) push(series, type, s.t, n);
    if (s.fds != null) push(series, 'fd', s.t, s.fds);
  }
  const types = [];
  let r2 = 1;
  const newest = samples.at(-1);
  for (const [type, pts] of series) {
    // A type the newest sample does not have has no handles open now: whatever it did, it is over.
    if (type === 'fd' ? newest.fds == null : !(type in (newest.resources ?? {}))) continue;
    if (pts.length < 5) continue;
    const fit = linearTrend(pts);
    if (!fit || fit.slope < H.minPerSec || fit.r2 < H.r2) continue;
    const counts = pts.map((p) => p[1]);
    const top = Math.max(...counts);
    const now_ = counts.at(-1);
    if (now_ - counts[0] < H.minRise || now_ < H.atTop * top) continue;
    types.push({ type, perSec: Math.round(fit.slope * 10) / 10, count: now_ });
    r2 = Math.min(r2, fit.r2);
  }
  if (!types.length) return null;
  types.sort((a, b) => b.perSec - a.perSec);
  // What the fds are, where the agent read them (as their count passed a new high): sockets to
  // one service, files by path, pipes. Idle keep-alive sockets are unref'd and missing from the
  // resource types, so this is often the only name the leak has.
  const fd = types.find((t) => t.type === 'fd');
  if (fd) {
    // The first reading of the worker's life, not of the window: the agent reads what the fds are
    // only as their count passes a new high, so a window may hold one reading, or none.
    const read = (x) => (x ? { t: x.t, kinds: x.fdKinds } : null);
    const life = window.since ? window.since(startedAt ?? -Infinity) : window.samples;
    const kinds = growingFdKinds(read(life.find((x) => x.fdKinds)), read(life.findLast((x) => x.fdKinds)));
    if (kinds.length) fd.kinds = kinds;
  }
  return {
    kind: LEAK_KINDS.HANDLES,
    growthPerSec: Math.round(named(types).reduce((a, t) => a + t.perSec, 0) * 10) / 10,
    types,
    r2: Math.round(r2 * 100) / 100,
    windowMs: samples.at(-1).t - samples[0].t,
  };
}

// A socket is a resource and an fd: counted once, as the resource. fds alone (files opened with
// fs.openSync and never closed) are the leak's only face, and then counted (and named: the report
// says the types by the same rule).
const named = (types) => (types.some((t) => t.type !== 'fd') ? types.filter((t) => t.type !== 'fd') : types);

/**
 * True when no type can pass the minRise test below: every type of the newest sample is in the
 * oldest too (so the two ends are its series' first and last points), and none has risen by
 * minRise. That is most windows of a healthy worker, which then cost a few lookups a tick
 * instead of a fit per type.
 */
function noRise(a, b) {
  const ra = a.resources ?? {};
  const rb = b.resources ?? {};
  for (const type of Object.keys(rb)) if (!(type in ra) || rb[type] - ra[type] >= H.minRise) return false;
  return b.fds == null || (a.fds != null && b.fds - a.fds < H.minRise);
}

function push(map, type, t, n) {
  let pts = map.get(type);
  if (!pts) map.set(type, (pts = []));
  pts.push([t, n]);
}
