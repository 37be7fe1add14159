// The snapshot as a graph over node ordinals (0 = the synthetic root): field accessors, each node's
// first edge, and the reverse index (who retains whom) that dominators and naming both need.
// Every index read from the file is checked once here, so later passes may trust them.
import { snapshotError } from './snapshot-error.js';

export const NONE = 0xffffffff;

export class Graph {
  /** @param {import('./read-snapshot.js').Snapshot} snap @param {string} file */
  constructor(snap, file) {
    const m = snap.meta;
    this.file = file;
    this.NF = m.node_fields.length;
    this.EF = m.edge_fields.length;
    this.nType = m.node_fields.indexOf('type');
    this.nName = m.node_fields.indexOf('name');
    this.nSelf = m.node_fields.indexOf('self_size');
    this.nEdges = m.node_fields.indexOf('edge_count');
    this.eType = m.edge_fields.indexOf('type');
    this.eName = m.edge_fields.indexOf('name_or_index');
    this.eTo = m.edge_fields.indexOf('to_node');
    /** @type {string[]} */ this.nodeTypes = m.node_types[0];
    /** @type {string[]} */ this.edgeTypes = m.edge_types[0];
    this.N = snap.nodeCount;
    this.E = snap.edgeCount;
    this.nodes = snap.nodes;
    this.edges = snap.edges;
    this.strings = snap.strings;
    this.locations = snap.locations;
    this.locationFields = m.location_fields?.length ?? 4;
    const et = (name) => this.edgeTypes.indexOf(name);
    this.ET = { context: et('context'), element: et('element'), property: et('property'), internal: et('internal'), hidden: et('hidden'), shortcut: et('shortcut'), weak: et('weak') };
    const nt = (name) => this.nodeTypes.indexOf(name);
    this.NT = { object: nt('object'), closure: nt('closure'), array: nt('array'), string: nt('string'), native: nt('native'), code: nt('code'), hidden: nt('hidden'), synthetic: nt('synthetic') };
    this.firstEdge = this.indexEdges();
    this.checkNodes();
    this.weakTables = this.stringTables();
    this.buildRetainers();
  }

  /** Each node's first edge index; to_node becomes an ordinal in place (one division, not millions). */
  indexEdges() {
    const { N, NF, EF, nodes, edges, strings } = this;
    const first = new Uint32Array(N + 1);
    for (let i = 0; i < N; i++) first[i + 1] = first[i] + nodes[i * NF + this.nEdges];
    if (first[N] !== this.E) throw snapshotError(this.file, `its nodes count ${first[N]} edges, the header ${this.E}`);
    const numbered = new Set([this.ET.element, this.ET.hidden]);
    for (let e = 0; e < this.E; e++) {
      const to = edges[e * EF + this.eTo], type = edges[e * EF + this.eType];
      if (to % NF !== 0 || to / NF >= N) throw snapshotError(this.file, `edge ${e} points outside the nodes`);
      if (type >= this.edgeTypes.length) throw snapshotError(this.file, `edge ${e} has an unknown type`);
      if (!numbered.has(type) && edges[e * EF + this.eName] >= strings.length) throw snapshotError(this.file, `edge ${e} names a missing string`);
      edges[e * EF + this.eTo] = to / NF;
    }
    return first;
  }

  checkNodes() {
    const { N, NF, nodes } = this;
    for (let i = 0; i < N; i++) {
      if (nodes[i * NF + this.nName] >= this.strings.length) throw snapshotError(this.file, `node ${i} names a missing string`);
      if (nodes[i * NF + this.nType] >= this.nodeTypes.length) throw snapshotError(this.file, `node ${i} has an unknown type`);
    }
  }

  /** The reverse of every essential edge, as source ordinals grouped by target. */
  buildRetainers() {
    const { N, EF, edges } = this;
    const first = new Uint32Array(N + 1);
    const count = (from, e) => { if (this.essential(from, e)) first[edges[e * EF + this.eTo] + 1]++; };
    this.forEachEdge(count);
    for (let i = 0; i < N; i++) first[i + 1] += first[i];
    const fill = first.slice(0, N);
    const from = new Uint32Array(first[N]);
    this.forEachEdge((src, e) => { if (this.essential(src, e)) from[fill[edges[e * EF + this.eTo]]++] = src; });
    this.firstRetainer = first;
    this.retainers = from;
  }

  /** @param {(from: number, edge: number) => void} fn */
  forEachEdge(fn) {
    const { N, firstEdge } = this;
    for (let i = 0; i < N; i++) for (let e = firstEdge[i], end = firstEdge[i + 1]; e < end; e++) fn(i, e);
  }

  /**
   * Weak edges keep nothing alive; shortcuts duplicate a real path except from the root (DevTools'
   * rule). V8's string tables are weak too (an internalized string only they keep is dropped at the
   * next GC), but the snapshot writes their edges as strong ones: followed, the root would dominate
   * every object key, and a dictionary's property store would hold none of its keys.
   */
  essential(from, e) {
    const type = this.edges[e * this.EF + this.eType];
    return type !== this.ET.weak && (type !== this.ET.shortcut || from === 0) && !this.weakTables.has(from);
  }

  /** The GC roots' string tables: `(Internalized strings)`, `(External strings)`. */
  stringTables() {
    const tables = new Set();
    for (let e = this.firstEdge[0]; e < this.firstEdge[1]; e++) {
      const roots = this.edgeTo(e);
      if (this.name(roots) !== '(GC roots)') continue;
      for (let k = this.firstEdge[roots]; k < this.firstEdge[roots + 1]; k++) {
        const to = this.edgeTo(k);
        if (this.type(to) === this.NT.synthetic && /^\((?:Internalized|External) strings\)$/.test(this.name(to))) tables.add(to);
      }
    }
    return tables;
  }

  type(i) { return this.nodes[i * this.NF + this.nType]; }
  typeName(i) { return this.nodeTypes[this.type(i)]; }
  name(i) { return this.strings[this.nodes[i * this.NF + this.nName]]; }
  selfSize(i) { return this.nodes[i * this.NF + this.nSelf]; }
  edgeType(e) { return this.edges[e * this.EF + this.eType]; }
  edgeTo(e) { return this.edges[e * this.EF + this.eTo]; }

  /** An element or hidden edge's index, or another edge's name (a property key, a variable). */
  edgeName(e) {
    const type = this.edgeType(e), raw = this.edges[e * this.EF + this.eName];
    return type === this.ET.element || type === this.ET.hidden ? raw : this.strings[raw];
  }

  /** The first edge of `from` named `name`, or -1. */
  edgeNamed(from, name) {
    for (let e = this.firstEdge[from]; e < this.firstEdge[from + 1]; e++) if (this.edgeName(e) === name) return e;
    return -1;
  }

  /** The node an edge named `name` leads to, or NONE. */
  child(from, name) {
    if (from === NONE) return NONE;
    const e = this.edgeNamed(from, name);
    return e < 0 ? NONE : this.edgeTo(e);
  }

  /** `{ scriptId, line, column }` (0-based) of a function, or of an object's constructor, or null. */
  location(i) {
    const k = this.locationSlot(i * this.NF);
    const L = this.locations;
    return k < 0 ? null : { scriptId: L[k + 1], line: L[k + 2], column: L[k + 3] };
  }

  /** V8 writes locations in node order: a binary search, no index of a million entries. */
  locationSlot(objectIndex) {
    const { locations: L, locationFields: LF } = this;
    if (this.locationsSorted === undefined) {
      this.locationsSorted = true;
      for (let k = LF; k < L.length; k += LF) if (L[k] < L[k - LF]) { this.locationsSorted = false; break; }
    }
    if (!this.locationsSorted) {
      for (let k = 0; k < L.length; k += LF) if (L[k] === objectIndex) return k;
      return -1;
    }
    let lo = 0, hi = L.length / LF - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1, v = L[mid * LF];
      if (v === objectIndex) return mid * LF;
      if (v < objectIndex) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
