// The path that keeps a holder alive, in the app's words: searched upward from the holder (not
// down from the GC roots, whose shortest paths run through V8's internals) to the first scope that
// declares it: a module's or a closure's variable, an export, or a property of the global object.
// Privacy: only names the code declares are kept. Element indexes become `[]`, the slots of a Map's
// or Set's table too, and a property name that may be data (a dictionary's key) becomes `[key]`.
import { NONE } from './graph.js';

const MAX_VISITS = 20000;
const STORES = new Set(['table', 'elements', 'properties', 'value']);
const IDENTIFIER = /^[A-Za-z_$][\w$]{0,63}$/;
const MAX_DECLARED_PROPERTIES = 16;

/**
 * @typedef {{ kind: 'module' | 'closure' | 'export' | 'global' | 'unknown', node: number, edges: number[] }} Chain
 * `edges` run from the head's node down to the holder.
 */

/** @param {import('./graph.js').Graph} g @param {number} holder @returns {Chain} */
export function chainToHead(g, holder) {
  const down = new Map([[holder, -1]]); // node → the edge that leads from it toward the holder
  const queue = [holder];
  for (let q = 0; q < queue.length && q < MAX_VISITS; q++) {
    const node = queue[q];
    for (let r = g.firstRetainer[node]; r < g.firstRetainer[node + 1]; r++) {
      const from = g.retainers[r];
      const e = walkableEdge(g, from, node);
      if (e < 0) continue;
      const kind = headKind(g, from, e);
      if (kind) return { kind, node: from, edges: [e, ...chainDown(g, down, node)] };
      if (down.has(from)) continue;
      down.set(from, e);
      queue.push(from);
    }
  }
  return { kind: 'unknown', node: NONE, edges: [] };
}

function chainDown(g, down, node) {
  const edges = [];
  for (let e = down.get(node); e >= 0; e = down.get(g.edgeTo(e))) edges.push(e);
  return edges;
}

/** The edge from `from` to `to` that a user could name (or step over), or -1. */
function walkableEdge(g, from, to) {
  const { ET } = g;
  for (let e = g.firstEdge[from]; e < g.firstEdge[from + 1]; e++) {
    if (g.edgeTo(e) !== to) continue;
    const type = g.edgeType(e), name = g.edgeName(e);
    if (type === ET.context || type === ET.element) return e;
    if (type === ET.property && name !== '__proto__' && name !== 'constructor') return e;
    if (type === ET.internal && (STORES.has(name) || /^\d+$/.test(name))) return e;
  }
  return -1;
}

function headKind(g, from, e) {
  const type = g.edgeType(e);
  if (type === g.ET.context) return isModuleScope(g, from) ? 'module' : 'closure';
  if (type === g.ET.property && g.name(from) === 'global' && g.typeName(from) === 'object') return 'global';
  if (g.name(from) === 'system / Cell' && exportsTable(g, from) !== NONE) return 'export';
  return null;
}

/** A module's top scope: an ES module's (its extension is the module) or a CommonJS wrapper's. */
export function isModuleScope(g, ctx) {
  const ext = g.child(ctx, 'extension');
  if (ext !== NONE && g.name(ext) === 'system / SourceTextModule') return true;
  const prev = g.child(ctx, 'previous');
  return prev !== NONE && g.name(prev) === 'system / NativeContext';
}

/** The module exports table that holds this Cell (an ES module's `export const x`), or NONE. */
export function exportsTable(g, cell) {
  for (let r = g.firstRetainer[cell]; r < g.firstRetainer[cell + 1]; r++) {
    const table = g.retainers[r];
    for (let k = g.firstRetainer[table]; k < g.firstRetainer[table + 1]; k++) {
      if (g.name(g.retainers[k]) === 'system / SourceTextModule') return table;
    }
  }
  return NONE;
}

/**
 * The module that exports this Cell and the name it exports it by, or null. An imported binding is
 * the exporter's own Cell, so the importing module's tables hold it too: the exporter's is the one
 * that keys it by its name (a string just before the Cell in its exports table).
 * @returns {{ module: number, name: string } | null}
 */
export function exporterOf(g, cell) {
  for (let r = g.firstRetainer[cell]; r < g.firstRetainer[cell + 1]; r++) {
    const table = g.retainers[r];
    const name = keyBefore(g, table, cell);
    if (!name) continue;
    for (let k = g.firstRetainer[table]; k < g.firstRetainer[table + 1]; k++) {
      const mod = g.retainers[k];
      if (g.name(mod) === 'system / SourceTextModule') return { module: mod, name };
    }
  }
  return null;
}

function keyBefore(g, table, cell) {
  let key = '';
  for (let e = g.firstEdge[table]; e < g.firstEdge[table + 1]; e++) {
    const to = g.edgeTo(e);
    if (to === cell) return IDENTIFIER.test(key) ? key : '';
    key = g.typeName(to).endsWith('string') ? g.name(to) : '';
  }
  return '';
}

/** An export's name, as its module exports it. */
function exportName(g, cell) {
  return exporterOf(g, cell)?.name ?? 'export';
}

/** The path's names after its head, privacy rules applied. @returns {string[]} */
export function pathNames(g, chain) {
  const out = [];
  if (chain.kind === 'export') out.push(exportName(g, chain.node));
  let underEvents = false, owner = chain.node;
  for (const e of chain.edges) {
    const type = g.edgeType(e), name = g.edgeName(e);
    if (type === g.ET.context) out.push(String(name));
    else if (type === g.ET.element || (type === g.ET.internal && /^\d+$/.test(name))) out.push('[]');
    else if (type === g.ET.property) out.push(underEvents && IDENTIFIER.test(name) ? name : propertyName(g, owner, name));
    underEvents = type === g.ET.property && name === '_events';
    owner = g.edgeTo(e);
  }
  return collapseBrackets(out);
}

/** A property is shown when the code declares it; a dictionary's keys are data. */
function propertyName(g, owner, name) {
  if (!IDENTIFIER.test(name)) return '[key]';
  // The global object is a dictionary, but its keys are globals the code declares.
  if (g.name(owner) === 'global') return name;
  const store = g.child(owner, 'properties');
  if (store !== NONE && g.name(store) === '(object properties)') return '[key]';
  let count = 0;
  for (let e = g.firstEdge[owner]; e < g.firstEdge[owner + 1]; e++) if (g.edgeType(e) === g.ET.property) count++;
  return count > MAX_DECLARED_PROPERTIES ? '[key]' : name;
}

/** `[]` after `[key]` or `[]` says nothing more: a table slot behind a dictionary entry. */
function collapseBrackets(names) {
  return names.filter((n, i) => !(n === '[]' && (names[i - 1] === '[]' || names[i - 1] === '[key]')));
}
