// Candidate holders: nodes that dominate many children of one kind (an Array's elements, a Map's
// or Set's table, an object used as a dictionary, a listener array). A backing store (a Map's
// table, a dictionary's property store) is lifted to the object the code sees: its dominator.
import { NONE } from './graph.js';

export const MIN_SIMILAR = 16;
const MAX_LIFT = 2;
const SKIP_EDGES = new Set(['map', '__proto__', 'constructor', 'prototype', 'context', 'shared', 'code', 'feedback_cell']);

/**
 * @typedef {object} Candidate
 * @property {number} holder     the object the code sees (an Array, Map, Set, Object…)
 * @property {string} type       the kind of most of the children it dominates (a constructor's name)
 * @property {number} count      how many children of that kind
 * @property {number} dominated  how many children it dominates, of any kind
 * @property {number} sample     one child of that kind (for its constructor's location)
 */

/**
 * @param {import('./graph.js').Graph} g
 * @param {{ idom: Uint32Array }} dom
 * @returns {Candidate[]}
 */
export function findCandidates(g, { idom }) {
  const primitive = primitives(g);
  const byHolder = new Map();
  for (let p = 0; p < g.N; p++) {
    if (g.firstEdge[p + 1] - g.firstEdge[p] < MIN_SIMILAR || idom[p] === NONE) continue;
    if (g.name(p) === 'system / Context') continue; // a scope's variables are not a collection
    const top = dominantKind(g, idom, p, primitive);
    if (!top || top.count < MIN_SIMILAR || isInternal(top.type)) continue;
    const holder = lift(g, idom, p);
    if (holder === NONE) continue;
    const seen = byHolder.get(holder);
    if (!seen || seen.count < top.count) byHolder.set(holder, { holder, ...top });
  }
  return [...byHolder.values()];
}

/** The most frequent kind among the children `p` dominates. */
function dominantKind(g, idom, p, primitive) {
  const counts = new Map();
  let dominated = 0;
  for (let e = g.firstEdge[p]; e < g.firstEdge[p + 1]; e++) {
    const to = g.edgeTo(e);
    if (idom[to] !== p || !g.essential(p, e)) continue;
    const type = g.edgeType(e);
    if (type !== g.ET.element && type !== g.ET.property && type !== g.ET.internal) continue;
    if (type !== g.ET.element && SKIP_EDGES.has(g.edgeName(e))) continue;
    dominated++;
    const key = kindKey(g, to);
    const c = counts.get(key);
    if (c) c.count++;
    else counts.set(key, { count: 1, sample: to });
  }
  // A Map keyed by strings dominates as many keys as values: the values are what it holds.
  let best = null, bestObject = null;
  for (const c of counts.values()) {
    if (!best || c.count > best.count) best = c;
    if (!primitive.has(g.type(c.sample)) && (!bestObject || c.count > bestObject.count)) bestObject = c;
  }
  if (bestObject && bestObject.count >= MIN_SIMILAR) best = bestObject;
  return best && { type: kindOf(g, best.sample), count: best.count, dominated, sample: best.sample };
}

/** @param {import('./graph.js').Graph} g */
function primitives(g) {
  return new Set(g.nodeTypes.map((t, i) => (/string$|^number$|^symbol$|^bigint$/.test(t) ? i : -1)).filter((i) => i >= 0));
}

/** Objects by constructor name (its string index), everything else by node type. */
function kindKey(g, node) {
  const type = g.type(node);
  return type === g.NT.object ? g.nodeTypes.length + g.nodes[node * g.NF + g.nName] : type;
}

/**
 * What a node is, in words that never carry data: a constructor's name for objects; for strings,
 * numbers and regexps the kind alone (their node name is their content).
 */
export function kindOf(g, node) {
  const t = g.typeName(node), name = g.name(node);
  if (t === 'object') return name.startsWith('system /') ? '(internal)' : name;
  if (t === 'closure') return 'Function';
  if (t.endsWith('string')) return 'string';
  if (t === 'regexp') return 'RegExp';
  if (t === 'number' || t === 'symbol' || t === 'bigint') return t;
  if (t === 'native' && /^[\w$ /.:-]{1,80}$/.test(name)) return name;
  return t === 'array' ? '(array)' : '(internal)';
}

const isInternal = (type) => type === '(internal)' || type === '(array)';

/** The object the code holds: `p` itself, or the object whose backing store `p` is. */
function lift(g, idom, p) {
  let node = p;
  for (let step = 0; step <= MAX_LIFT && node !== NONE; step++) {
    if (isVisible(g, node)) return node;
    if (g.name(node) === 'system / Context' || node === 0) return NONE;
    node = idom[node];
  }
  return NONE;
}

function isVisible(g, node) {
  if (g.type(node) !== g.NT.object) return false;
  const name = g.name(node);
  return !name.startsWith('system /') && name !== 'global';
}
