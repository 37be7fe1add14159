// A slot's memory story across its workers: a listener on the supervisor's event stream that keeps,
// per slot, each poll's memory breakdown, the GC share between polls and the loop delay (the
// 'sample' event), and the events that explain the curve (spawns, recycles and their reason, leaks
// and their sites, GCs, advice). Bounded: the last FINE_SPAN_MS at full resolution, COARSE_SPAN_MS
// as the maximum of each COARSE_MS bucket, and the newest MAX_EVENTS events. A recycle does not
// reset it: that is the point, four workers filling up at the same slope are one line.
import { EVENTS, REASONS } from '../../constants.js';
import { SeriesRing, bucketMax } from './series-ring.js';
import { memoryOf } from '../../sample/memory-of.js';
import { readerOf } from '../../sample/field-reader.js';

// Each series kept: its name in the history (`nodesup history --json`), the Sample fields it is
// read from (src/sample/fields.js), and how, when it is not one field as it is.
export const SERIES_OF = Object.freeze([
  { name: 'rss', fields: ['treeRss', 'rss'], read: (s) => memoryOf(s) },
  { name: 'heapUsed', fields: ['heapUsed'] },
  { name: 'external', fields: ['external'] },
  { name: 'native', fields: ['native'] },
  { name: 'children', fields: ['childrenRss'] },
  { name: 'gcSharePoll', fields: ['gcMs', 't', 'pid'], read: (s, prev, pid) => gcSharePoll(s, prev, pid) },
  { name: 'delayP99', fields: ['delayP99'] },
].map((x) => Object.freeze({ read: readerOf(x.fields[0]), ...x })));
export const SERIES = Object.freeze(SERIES_OF.map((x) => x.name));
export const FINE_SPAN_MS = 30 * 60_000;
export const COARSE_MS = 30_000;
export const COARSE_SPAN_MS = 6 * 3600_000;
// Recycles and crashes mark the chart over 6 hours: a worker recycled every 40 s is 540 of them,
// so they are kept apart, in typed columns (24 bytes each), and more of them than of the rest
// (spawns, GCs, leak warnings with sites, advice), which are small objects.
export const MAX_MARKS = 600;
export const MAX_EVENTS = 100;
// A mark's code: a recycle by reason, or a crash, an OOM kill, a restart.
const MARK_CODES = [...Object.values(REASONS).map((reason) => ({ event: EVENTS.WORKER_RECYCLE, reason })),
  { event: EVENTS.WORKER_EXIT, planned: false }, { event: EVENTS.WORKER_EXIT, planned: false, oomKill: true }, { event: EVENTS.WORKER_RESTART }];
const MARK_COLUMNS = ['code', 'pid', 'value', 'limit'];

function markCode(fields) {
  if (fields.event === EVENTS.WORKER_RECYCLE) return MARK_CODES.findIndex((m) => m.reason === fields.reason);
  if (fields.event === EVENTS.WORKER_EXIT && !fields.planned) return MARK_CODES.findIndex((m) => m.event === EVENTS.WORKER_EXIT && Boolean(m.oomKill) === Boolean(fields.oomKill));
  if (fields.event === EVENTS.WORKER_RESTART) return MARK_CODES.length - 1;
  return -1;
}
// A poll interval under 250 ms keeps 30 minutes of 4 points a second, not more.
const MAX_FINE_POINTS = 7200;

// What each kept event carries beyond event, t, slot and pid.
const KEEP = {
  [EVENTS.WORKER_SPAWN]: ['cause'],
  [EVENTS.WORKER_RECYCLE]: ['reason', 'value', 'limit', 'kind'],
  [EVENTS.WORKER_GC]: ['rssBefore', 'rssAfter', 'heapBefore', 'heapAfter'],
  [EVENTS.LEAK_WARNING]: ['kind', 'growthBytesPerSec', 'projectedLimitInSec', 'sites'],
  [EVENTS.ADVICE]: ['code'],
  [EVENTS.RECYCLE_FAILED]: ['reason'],
  [EVENTS.WORKER_RETAINERS]: ['taken', 'held', 'why'],
};
const TOP_SITES = 3;

/** The values of one poll's sample in SERIES order; gcSharePoll from the previous sample of the same worker. */
export function pointOf(sample, prev, pid = sample.pid) {
  return SERIES_OF.map((x) => x.read(sample, prev, pid) ?? null);
}

/** GC time between two polls of the same worker as a share of the time between them, 0..1; null for a worker's first. */
export function gcSharePoll(s, prev, pid = s.pid) {
  return prev && prev.pid === pid && s.gcMs != null && prev.gcMs != null && s.t > prev.t
    ? Math.min(1, Math.max(0, (s.gcMs - prev.gcMs) / (s.t - prev.t))) : null;
}

/** Keep every slot's history from `events`; `pollInterval` sizes the full-resolution ring. */
export function createSlotHistory(events, { pollInterval = 1000 } = {}) {
  const fineCap = Math.min(MAX_FINE_POINTS, Math.ceil(FINE_SPAN_MS / Math.max(1, pollInterval)) + 1);
  const coarseCap = COARSE_SPAN_MS / COARSE_MS;
  const slots = new Map();
  const slotOf = (n) => {
    let s = slots.get(n);
    if (!s) {
      s = { fine: new SeriesRing(fineCap, SERIES), coarse: new SeriesRing(coarseCap, SERIES), bucket: null, prev: null, marks: new SeriesRing(MAX_MARKS, MARK_COLUMNS), notes: [] };
      slots.set(n, s);
    }
    return s;
  };

  const onSample = ({ slot, pid, sample }) => {
    if (!sample || !Number.isInteger(slot)) return;
    const s = slotOf(slot);
    const values = pointOf(sample, s.prev, pid);
    s.prev = { pid, t: sample.t, gcMs: sample.gcMs };
    s.fine.push(sample.t, values);
    const start = Math.floor(sample.t / COARSE_MS) * COARSE_MS;
    if (s.bucket && s.bucket.t !== start) { s.coarse.push(s.bucket.t, SERIES.map((k) => s.bucket[k])); s.bucket = null; }
    s.bucket ??= { t: start, ...Object.fromEntries(SERIES.map((k) => [k, null])) };
    SERIES.forEach((k, c) => { const v = values[c]; if (v != null && (s.bucket[k] === null || v > s.bucket[k])) s.bucket[k] = v; });
  };
  const onEvent = (fields, { time = null } = {}) => {
    if (!Number.isInteger(fields?.slot)) return;
    const code = markCode(fields);
    if (code >= 0) {
      slotOf(fields.slot).marks.push(time, [code, fields.pid, fields.value, fields.limit]);
      return;
    }
    const ev = noteOf(fields, time);
    if (!ev) return;
    const { notes } = slotOf(fields.slot);
    notes.push(ev);
    if (notes.length > MAX_EVENTS) notes.shift();
  };
  events.on('sample', onSample);
  events.on('event', onEvent);

  return {
    /**
     * One slot over [now - rangeMs, now) in `points` buckets (max of each): what a chart draws.
     * Past the full-resolution span the coarse buckets answer. Null for a slot never seen.
     */
    range(slot, { now, rangeMs, points, series = SERIES, events: withEvents = true }) {
      const s = slots.get(slot);
      if (!s) return null;
      const from = now - rangeMs;
      const fineCovers = s.fine.length > 0 && (s.fine.length < s.fine.capacity || s.fine.first() <= from);
      const sources = fineCovers ? [s.fine] : [s.coarse, s.bucket, s.fine];
      const cols = bucketMax(sources, series, from, now, Math.max(1, Math.floor(points)));
      return { slot, from, to: now, stepMs: rangeMs / Math.max(1, Math.floor(points)), ...cols, events: withEvents ? eventsOf(s, from, now) : [] };
    },
    /** Every slot's full history (or one slot's): the documented `nodesup history --json` shape. */
    dump(only = null) {
      const out = [];
      for (const n of [...slots.keys()].sort((a, b) => a - b)) {
        if (only !== null && n !== only) continue;
        const s = slots.get(n);
        const coarse = s.coarse.slice();
        if (s.bucket) { coarse.t.push(s.bucket.t); for (const k of SERIES) coarse[k].push(s.bucket[k]); }
        out.push({ slot: n, fine: { stepMs: pollInterval, ...s.fine.slice() }, coarse: { stepMs: COARSE_MS, ...coarse }, events: eventsOf(s, -Infinity, Infinity) });
      }
      return out;
    },
    /** Bytes the rings hold (typed arrays), over all slots. */
    bytes() {
      let n = 0;
      for (const s of slots.values()) n += s.fine.bytes + s.coarse.bytes + s.marks.bytes;
      return n;
    },
    /** Slots with a history. */
    slots: () => [...slots.keys()].sort((a, b) => a - b),
    /** Forget slots at or above `count` (a scale-down). */
    trim(count) { for (const n of slots.keys()) if (n >= count) slots.delete(n); },
    close() { events.off('sample', onSample); events.off('event', onEvent); },
  };
}

// Marks and notes as events, oldest first, within [from, to].
function eventsOf(s, from, to) {
  const out = s.notes.filter((e) => e.t >= from && e.t <= to).map((e) => ({ ...e }));
  const m = s.marks;
  for (let k = m.indexFrom(from); k < m.length && m.timeAt(k) <= to; k++) {
    const [code, pid, value, limit] = MARK_COLUMNS.map((_, c) => m.valueAt(k, c));
    const ev = { t: m.timeAt(k), ...MARK_CODES[code], pid: Number.isFinite(pid) ? pid : null };
    if (ev.event === EVENTS.WORKER_RECYCLE) Object.assign(ev, { value: Number.isFinite(value) ? value : null, limit: Number.isFinite(limit) ? limit : null });
    out.push(ev);
  }
  return out.sort((a, b) => a.t - b.t);
}

// An event as the history keeps it: what KEEP names of it, sites and holders cut to the top few.
function noteOf(fields, time) {
  const keep = KEEP[fields.event];
  if (!keep) return null;
  const ev = { t: time, event: fields.event, pid: fields.pid ?? null };
  for (const k of keep) if (fields[k] !== undefined) ev[k] = k === 'sites' ? trimSites(fields.sites) : k === 'held' ? trimHeld(fields.held) : fields[k];
  return ev;
}

function trimHeld(held) {
  if (!Array.isArray(held)) return undefined;
  return held.slice(0, TOP_SITES).map(({ bytes, share, count, type, path, holder }) => ({ bytes, share, count, type, path, holder }));
}

function trimSites(sites) {
  if (!Array.isArray(sites)) return undefined;
  return sites.slice(0, TOP_SITES).map(({ fn, file, line, column, bytesPerMin, share }) => ({ fn, file, line, column, bytesPerMin, share }));
}
