// Which code holds what a worker retains, from V8's sampling heap profiler. V8 drops a sample when
// its object is collected, so a profile taken just after a full GC holds only retained objects,
// attributed to the stack that allocated them; two such profiles apart give the retained growth per
// site. Code that only churns garbage has nothing left in either profile, however much it allocates.
// Pure: profiles in, sites out.
import { isCodeFrame, libraryOf, siteOf, throughOf } from './frames.js';

/**
 * @typedef {{fn:string, file:string, line:number}} SiteKey
 * @typedef {SiteKey & {bytes:number, package?:string, through?:string, via?:import('./frames.js').Via}} FlatSite  retained bytes allocated by one site
 * @typedef {{total:number, ours?:number, sites:FlatSite[]}} FlatProfile  ours: bytes nodesup itself allocated, left out of total
 * @typedef {SiteKey & {bytesPerMin:number, share:number}} RetainingSite
 */

const MAX_FLAT = 64; // sites kept per flat profile: the IPC reply stays small whatever the app

/**
 * Sum a sampling heap profile's tree by the site that allocated: the deepest frame of code on disk
 * (not node: internals), so `new Array()` inside `cacheUser` names cacheUser. An allocation whose
 * deepest code frame is nodesup's (`ours`: the agent, its GC through node:vm, its samplers) is
 * nodesup's own: it is counted apart (`ours`), never filed under a site or the app's caller. A
 * site inside node_modules carries its package (`pkg` gives the version from its directory) and
 * `via`, the app's own frame that reached it (the one with the most bytes, when several did).
 * @param {{callFrame:{functionName:string, url:string, lineNumber:number}, selfSize:number, children?:object[]}} head
 * @param {{cwd?:string, ignore?:(url:string) => boolean, pkg?:(dir:string) => string|null, max?:number}} [o]
 * @returns {FlatProfile}
 */
export function flattenProfile(head, { cwd = '', ignore = () => false, pkg = () => null, max = MAX_FLAT } = {}) {
  const bySite = new Map();
  let total = 0;
  let ours = 0;
  // Iterative: an app's recursion must not overflow the agent's stack.
  // Per node: the deepest code frame above it (and whether it is ours), the deepest app frame
  // outside node_modules (the `via` of a library site), the outermost library frame below that app
  // frame (the package the app called: `through`), and the deepest named frame (a fallback).
  const stack = [[head, null, false, null, null, null]];
  while (stack.length) {
    const [node, code, mine, app, entry, fallback] = stack.pop();
    const f = node.callFrame ?? {};
    let c = code;
    let m = mine;
    let a = app;
    let e = entry;
    if (isCodeFrame(f.url)) {
      c = f;
      m = ignore(f.url);
      if (!m) {
        const lib = libraryOf(f.url);
        if (!lib) { a = f; e = null; } else if (!e) e = f;
      }
    }
    const fb = f.functionName || f.url ? f : fallback;
    if (node.selfSize > 0) {
      if (m) ours += node.selfSize;
      else {
        total += node.selfSize;
        add(bySite, c ?? fb, c && a !== c ? a : null, e, node.selfSize, cwd);
      }
    }
    for (const ch of node.children ?? []) stack.push([ch, c, m, a, e, fb]);
  }
  const sites = [...bySite.values()].sort((x, y) => y.bytes - x.bytes).slice(0, max).map((e) => finish(e, pkg));
  return { total, ours, sites };
}

function add(bySite, at, via, entry, bytes, cwd) {
  const key = at ? siteOf(at, cwd) : { fn: '(unknown)', file: '', line: 0 };
  const k = `${key.fn}\u0000${key.file}\u0000${key.line}`;
  let e = bySite.get(k);
  if (!e) bySite.set(k, (e = { key, url: at?.url ?? '', bytes: 0, vias: null }));
  e.bytes += bytes;
  if (via) {
    const v = siteOf(via, cwd);
    const vk = `${v.file}:${v.line}`;
    e.vias ??= new Map();
    const was = e.vias.get(vk);
    e.vias.set(vk, { v, entryUrl: was?.entryUrl ?? entry?.url ?? null, bytes: (was?.bytes ?? 0) + bytes });
  }
}

const named = (lib, pkg) => {
  const version = pkg(lib.dir);
  return version ? `${lib.name}@${version}` : lib.name;
};

function finish(e, pkg) {
  const out = { ...e.key, bytes: e.bytes };
  const lib = libraryOf(e.url);
  if (!lib) return out;
  out.package = named(lib, pkg);
  let best = null;
  for (const x of e.vias?.values() ?? []) if (!best || x.bytes > best.bytes) best = x;
  if (!best) return out;
  const { through } = throughOf(lib, best.entryUrl ? libraryOf(best.entryUrl) : null);
  if (through) out.through = named(through, pkg);
  out.via = { file: best.v.file, line: best.v.line, fn: best.v.fn };
  return out;
}

export const SITE_THRESHOLDS = Object.freeze({
  share: 0.1, // a site must hold this share of the retained growth to be named: churn caught mid-flight stays below
  top: 5,
});

/**
 * The sites that grew between two flat profiles (both taken after a full GC), largest first, with
 * their rate and their share of all the growth. Sites that shrank or held still are not named.
 * @param {FlatProfile} before @param {FlatProfile} after @param {number} spanMs
 * @returns {RetainingSite[]}
 */
export function retainedSites(before, after, spanMs, { share = SITE_THRESHOLDS.share, top = SITE_THRESHOLDS.top } = {}) {
  if (!before || !after || !(spanMs > 0)) return [];
  const was = new Map(before.sites.map((s) => [key(s), s.bytes]));
  const grown = [];
  for (const s of after.sites) {
    const d = s.bytes - (was.get(key(s)) ?? 0);
    if (d > 0) grown.push({ s, d });
  }
  const sum = grown.reduce((a, g) => a + g.d, 0);
  if (sum <= 0) return [];
  return grown
    .filter((g) => g.d / sum >= share)
    .sort((a, b) => b.d - a.d)
    .slice(0, top)
    .map(({ s, d }) => ({ fn: s.fn, file: s.file, line: s.line, ...(s.resource ? { resource: s.resource } : {}), ...(s.package ? { package: s.package } : {}), ...(s.through ? { through: s.through } : {}), ...(s.via ? { via: s.via } : {}), bytesPerMin: Math.round((d * 60_000) / spanMs), share: Math.round((d / sum) * 100) / 100 }));
}

const key = (s) => `${s.fn}\u0000${s.file}\u0000${s.line}\u0000${s.resource ?? ''}`;

/**
 * Two flat profiles added site by site (the in-process profiler's segments), largest first, capped.
 * @param {FlatProfile|null} a @param {FlatProfile} b @returns {FlatProfile}
 */
export function addProfiles(a, b, { max = MAX_FLAT } = {}) {
  if (!a) return { total: b.total, sites: b.sites.slice(0, max) };
  const bySite = new Map(a.sites.map((s) => [key(s), { ...s }]));
  for (const s of b.sites) {
    const prev = bySite.get(key(s));
    if (prev) prev.bytes += s.bytes;
    else bySite.set(key(s), { ...s });
  }
  return { total: a.total + b.total, sites: [...bySite.values()].sort((x, y) => y.bytes - x.bytes).slice(0, max) };
}

/**
 * The sites holding most of what a profile sampled as still live, largest first: what a worker
 * recycled for memory retained, read at the decision (no second point to diff: the profile has run
 * since the worker's birth, or since it began to fill fast). A site's rate is its share of the
 * worker's own fill rate, when that is known.
 * @param {FlatProfile|null} profile
 * @param {number|null} bytesPerMin  the worker's fill rate
 */
export function liveSites(profile, bytesPerMin = null, { share = SITE_THRESHOLDS.share, top = SITE_THRESHOLDS.top } = {}) {
  if (!profile?.sites?.length || !(profile.total > 0)) return [];
  return profile.sites
    .filter((x) => x.bytes / profile.total >= share)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top)
    .map(({ bytes, ...site }) => {
      const f = Math.round((bytes / profile.total) * 100) / 100;
      return { ...site, ...(bytesPerMin != null ? { bytesPerMin: Math.round(f * bytesPerMin) } : {}), share: f };
    });
}
