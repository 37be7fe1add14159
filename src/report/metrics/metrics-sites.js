// Which code leaks, as series a fleet can aggregate: nodesup_leak_site_bytes_per_second, the growth
// the current named leak of each kind attributes to each allocation site, summed over this
// supervisor's workers. Bounded whatever the app or the months of recycles: labels are the kind,
// the site (function and file, no line: a line moves with every deploy), the package@version and
// a holder reserved for the retainer; never a pid, a line or a worker's id. At most TOP_SITES sites
// per kind, the rest summed as site "other", and nodesup_leak_sites_folded_total counts the sites
// that went there. Read from the read model's rows at scrape time, like the other series: a site
// leaves with its leak, when the worker is recycled and its successor is not leaking, or once the
// leak has not been judged current for STALE_MS.
//
// A tick's verdict may carry no sites while the leak stands: a heap leak seen over the whole window
// is judged from the polled floor, the confirmation points (and their sites) beside it, and the two
// verdicts may take turns from tick to tick. The sites a worker's leak of that kind was last named
// with (a tick's judgement, a leak.warning, a leak recycle) stand for it until the worker exits.
import client from './prom.js';
import { EVENTS, LEAK_KINDS, REASONS, STATES } from '../../constants.js';

export const TOP_SITES = 5;
export const STALE_MS = 5 * 60_000;
export const OTHER = 'other';
const MAX_LABEL = 200; // an absolute path deep in a monorepo stays a readable label
const MAX_FOLDED = 1024; // sites remembered as folded, each counted once
const MAX_NAMED = 1024; // workers whose sites are remembered, in case an exit is never seen
// Kinds whose leaks carry sites with bytes: handles leak by resource type, which has its own series.
const SITE_KINDS = Object.values(LEAK_KINDS).filter((k) => k !== LEAK_KINDS.HANDLES);

const NM = 'node_modules/';

/** A site as its label: "cacheUser lib/users.js", a library's file from its package's own folder. */
export function siteLabel(s) {
  const file = String(s.file ?? '');
  const at = file.lastIndexOf(NM);
  const shown = at >= 0 ? file.slice(at + NM.length) : file;
  const text = `${s.resource ? `${s.resource} ` : ''}${s.fn || '(anonymous)'}${shown ? ` ${shown}` : ''}`;
  return text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text;
}

// A site's rate: its own, else its share of the leak's.
function rateOf(site, leak) {
  if (Number.isFinite(site.bytesPerMin)) return site.bytesPerMin / 60;
  if (Number.isFinite(site.share) && Number.isFinite(leak.growthBytesPerSec)) return site.share * leak.growthBytesPerSec;
  return null;
}

/** What the metrics remember between scrapes: when a leak was first seen, the sites each worker's leak was named with. */
export const siteMemory = () => ({ seen: new Map(), named: new Map() });

/** Remember the sites a worker's leak of `kind` was named with (a row, an event). */
export function rememberSites(memory, pid, kind, sites) {
  if (pid == null || !sites?.length) return;
  const key = `${pid}:${kind}`;
  memory.named.delete(key);
  if (memory.named.size >= MAX_NAMED) memory.named.delete(memory.named.keys().next().value);
  memory.named.set(key, sites);
}

/**
 * The series of one scrape: per kind the top sites by rate and `other`, and the sites folded.
 * `memory.seen` keeps when a leak without its own judgement time (a slot's leak across workers)
 * was first seen, by slot, pid and kind; entries not in this snapshot are dropped.
 * @param {{slots?: object[]}} snapshot
 * @param {number} now
 * @param {ReturnType<typeof siteMemory>} memory
 * @returns {{series: {kind:string, site:string, package:string, holder:string, value:number}[], folded: {kind:string, key:string}[]}}
 */
export function siteSeries(snapshot, now, memory = siteMemory(), { top = TOP_SITES, staleMs = STALE_MS } = {}) {
  const { seen } = memory;
  const byKind = new Map();
  const present = new Set();
  for (const row of snapshot.slots ?? []) {
    const leak = row.state !== STATES.EXITED ? row.leak : null;
    if (!leak || !SITE_KINDS.includes(leak.kind)) continue;
    if (leak.sites?.length) rememberSites(memory, row.pid, leak.kind, leak.sites);
    const named = leak.sites?.length ? leak.sites : memory.named.get(`${row.pid}:${leak.kind}`);
    if (!named) continue;
    const id = `${row.slot}:${row.pid}:${leak.kind}`;
    present.add(id);
    if (!seen.has(id)) seen.set(id, now);
    const since = leak.at ?? seen.get(id);
    if (now - since > staleMs) continue;
    const sites = byKind.get(leak.kind) ?? new Map();
    byKind.set(leak.kind, sites);
    for (const s of named) {
      const rate = rateOf(s, leak);
      if (!(rate > 0)) continue;
      const site = siteLabel(s);
      const pkg = s.package ?? '';
      const key = `${site}\u0000${pkg}`;
      const x = sites.get(key) ?? { site, package: pkg, value: 0 };
      x.value += rate;
      sites.set(key, x);
    }
  }
  for (const id of seen.keys()) if (!present.has(id)) seen.delete(id);
  const series = [];
  const folded = [];
  for (const [kind, sites] of byKind) {
    const ranked = [...sites.entries()].sort((a, b) => b[1].value - a[1].value);
    for (const [, x] of ranked.slice(0, top)) series.push({ kind, site: x.site, package: x.package, holder: '', value: x.value });
    const rest = ranked.slice(top);
    if (!rest.length) continue;
    series.push({ kind, site: OTHER, package: '', holder: '', value: rest.reduce((a, [, x]) => a + x.value, 0) });
    for (const [key] of rest) folded.push({ kind, key });
  }
  return { series, folded };
}

/**
 * Register the site series on `registry`, read from `snap` (the scrape's snapshot) at scrape time;
 * `events` gives the sites named in the ticks' judgements, leak warnings and leak recycles, and the
 * exits that forget them.
 * @param {client.Registry} registry
 * @param {() => {slots?: object[], now?: number}} snap
 * @param {import('node:events').EventEmitter} [events]
 * @returns {{close(): void}}
 */
export function addLeakSiteSeries(registry, snap, events) {
  const memory = siteMemory();
  const counted = new Set();
  let last = null;
  // Both families read one computation per scrape, whichever collects first.
  const compute = () => {
    const sn = snap();
    if (last?.sn !== sn) last = { sn, ...siteSeries(sn, sn.now ?? Date.now(), memory) };
    return last;
  };
  // Every tick's judgements, as the read model hears them: a scrape between two ticks that named sites still has them.
  const onJudged = (list) => {
    try {
      for (const j of list ?? []) if (j?.leak?.sites?.length) rememberSites(memory, j.pid, j.leak.kind, j.leak.sites);
    } catch { /* never the supervisor's problem */ }
  };
  const onEvent = (ev) => {
    try {
      if (ev?.event === EVENTS.LEAK_WARNING || (ev?.event === EVENTS.WORKER_RECYCLE && ev.reason === REASONS.LEAK)) rememberSites(memory, ev.pid, ev.kind, ev.sites);
      else if (ev?.event === EVENTS.WORKER_EXIT) for (const key of memory.named.keys()) if (key.startsWith(`${ev.pid}:`)) memory.named.delete(key);
    } catch { /* a metrics bug must never break the supervisor that emitted the event */ }
  };
  events?.on('event', onEvent);
  events?.on('judged', onJudged);
  new client.Counter({
    name: 'nodesup_leak_sites_folded_total',
    help: 'Allocation sites of a named leak folded into site="other" of nodesup_leak_site_bytes_per_second (more than five grew at once), each counted once.',
    labelNames: ['kind'], registers: [registry],
    collect() {
      for (const kind of SITE_KINDS) this.inc({ kind }, 0); // every kind from the start, so increase() sees the first
      for (const { kind, key } of compute().folded) {
        const k = `${kind}\u0000${key}`;
        if (counted.has(k)) continue;
        if (counted.size >= MAX_FOLDED) counted.delete(counted.values().next().value);
        counted.add(k);
        this.inc({ kind });
      }
    },
  });
  new client.Gauge({
    name: 'nodesup_leak_site_bytes_per_second',
    help: 'Growth attributed to an allocation site by the current named leak (top sites, the rest as "other").',
    labelNames: ['kind', 'site', 'package', 'holder'], registers: [registry],
    collect() {
      this.reset();
      for (const { value, ...labels } of compute().series) this.set(labels, value);
    },
  });
  return {
    close() {
      events?.off('event', onEvent);
      events?.off('judged', onJudged);
    },
  };
}
