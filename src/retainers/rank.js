// Which holders explain what grew, best first. A score multiplies three things (docs/retainers.md):
// how close the retained size is to the growth the supervisor measured, how much the holder looks
// like a pile of one kind of object, and whether that kind was allocated at one of the leak's sites
// (sites.js).
// Holders whose paths read the same are one group (an Array per user in a Map of users: one line).

const PRESELECT = 40;
const MAX_HELD = 5;
const BUFFERISH = new Set(['Buffer', 'FastBuffer', 'Uint8Array', 'ArrayBuffer', 'SharedArrayBuffer']);

/**
 * @param {import('./holders.js').Candidate[]} candidates
 * @param {{ idom: Uint32Array, retained: Float64Array }} dom
 * @param {object} hints the normalised hints
 * @param {(c: import('./holders.js').Candidate) => import('./describe.js').Description} describe
 */
export function rankHolders(candidates, dom, hints, describe) {
  const heap = dom.retained[0] || 1;
  const pre = candidates
    .map((c) => ({ c, bytes: dom.retained[c.holder], s: typeBoost(c, hints) * uniformity(c) * sizeFit(dom.retained[c.holder], hints, heap) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, PRESELECT);
  const groups = new Map();
  for (const { c, bytes } of pre) {
    const d = describe(c);
    const key = `${d.path.join('\u0000')}\u0000${c.type}`;
    const g = groups.get(key);
    if (g) Object.assign(g, { bytes: g.bytes + bytes, count: g.count + c.count, dominated: g.dominated + c.dominated, holders: [...g.holders, c.holder], siteBoost: Math.max(g.siteBoost, d.siteBoost) });
    else groups.set(key, { ...c, bytes, d, holders: [c.holder], siteBoost: d.siteBoost });
  }
  const scored = [...groups.values()].map((g) => ({ ...g, score: sizeFit(g.bytes, hints, heap) * uniformity(g) * g.siteBoost * typeBoost(g, hints) * ownership(g.d) }));
  // Node's tables do not grow with the app's traffic: when a holder of the app's (or a package's)
  // keeps at least half of what grew, no node: holder comes before it, however its size fits.
  const explained = hints.growthBytes > 0 && scored.some((g) => !isNodeInternal(g.d) && g.bytes >= hints.growthBytes / 2);
  const tier = (g) => (explained && isNodeInternal(g.d) ? 1 : 0);
  scored.sort((a, b) => tier(a) - tier(b) || b.score - a.score || b.bytes - a.bytes);
  // Two groups of one path (its elements of two kinds) would read as one holder said twice: the
  // better one is said (Node 26's unnamed internals gave two "(internal)/Object").
  const said = new Set();
  const once = (g) => { const k = g.d.path.join('\u0000'); if (said.has(k)) return false; said.add(k); return true; };
  return pickDisjoint(scored, dom.idom).filter(once).map((g) => ({
    bytes: g.bytes,
    share: round(g.bytes / (hints.growthBytes > 0 ? hints.growthBytes : heap)),
    count: g.count,
    type: g.type,
    path: g.d.path,
    holder: g.d.holder,
  }));
}

/** 1 when the holder keeps what grew; less as it keeps less, or (more gently) more. */
export function sizeFit(bytes, hints, heap) {
  const grown = hints.growthBytes;
  if (!(grown > 0)) return bytes / heap;
  return bytes < grown ? bytes / grown : Math.sqrt(grown / bytes);
}

/** Many children of one kind: 1 from a thousand alike, less for fewer or for a mixed bag. */
export function uniformity({ count, dominated }) {
  return Math.min(1, Math.log10(1 + count) / 3) * (0.5 + 0.5 * (count / Math.max(count, dominated)));
}

/**
 * Node's own tables (the builtin module map, error codes) are big and steady; an app grows its
 * own. A holder declared inside node: internals, or reached by no declared name, weighs less.
 */
function ownership(d) {
  if (d.path[0].startsWith('(internal)')) return 0.3;
  return isNodeInternal(d) ? 0.1 : 1;
}

const isNodeInternal = (d) => /^\((?:module|closure)\) node:/.test(d.path[0]);

/** External growth is Buffers' and ArrayBuffers' memory: a holder of those is the likelier one. */
function typeBoost(c, hints) {
  return hints.kind === 'external' && BUFFERISH.has(c.type) ? 2 : 1;
}

/** Best first, leaving out a holder inside (or around) one already named: the same memory twice. */
function pickDisjoint(scored, idom) {
  const chosen = [];
  const inside = (a, b) => {
    for (let n = a, steps = 0; steps < 100000; n = idom[n], steps++) {
      if (n === b) return true;
      if (n === 0 || n === 0xffffffff) return false;
    }
    return false;
  };
  for (const g of scored) {
    if (chosen.length === MAX_HELD) break;
    const overlaps = chosen.some((c) => g.holders.some((h) => c.holders.some((k) => inside(h, k) || inside(k, h))));
    if (!overlaps) chosen.push(g);
  }
  return chosen;
}

const round = (x) => Math.round(x * 1000) / 1000;
