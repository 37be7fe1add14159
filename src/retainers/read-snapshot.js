// A .heapsnapshot read as a stream: the small header is JSON-parsed, then every section after it
// is scanned byte by byte into typed arrays (nodes, edges, locations) and one array of strings.
// A whole-file JSON.parse would hold the text, the parsed arrays of doubles and the result at once.
import fs from 'node:fs';
import { NumberArrayScanner, SkipScanner, StringArrayScanner } from './scanners.js';
import { snapshotError, SNAPSHOT_ERROR } from './snapshot-error.js';

const HEADER_LIMIT = 4 << 20;
const KEY_LIMIT = 256;
const NODES_KEY = Buffer.from('"nodes"');

/**
 * @typedef {object} Snapshot
 * @property {any} meta `snapshot.meta`: field and type names
 * @property {number} nodeCount
 * @property {number} edgeCount
 * @property {Uint32Array} nodes
 * @property {Uint32Array} edges
 * @property {Uint32Array} locations
 * @property {string[]} strings
 */

/**
 * Read and check a heap snapshot file.
 * @param {string} file
 * @param {{ highWaterMark?: number }} [opts]
 * @returns {Promise<Snapshot>}
 */
export async function readSnapshot(file, { highWaterMark = 1 << 20 } = {}) {
  const reader = new SnapshotReader(file);
  const stream = fs.createReadStream(file, { highWaterMark });
  try {
    for await (const chunk of stream) reader.feed(chunk);
    return reader.finish();
  } catch (err) {
    if (err?.code === SNAPSHOT_ERROR) throw err;
    const what = err?.code === 'ENOENT' ? 'no such file' : err?.code === 'EISDIR' ? 'a directory' : (err?.message ?? String(err));
    throw snapshotError(file, what, { cause: err });
  } finally {
    stream.destroy();
  }
}

class SnapshotReader {
  constructor(file) {
    this.file = file;
    this.state = 'header';
    /** @type {Buffer[]} */
    this.headerChunks = [];
    this.pendingKey = '';
    this.key = '';
    this.scanner = null;
    /** @type {Record<string, any>} */
    this.sections = {};
  }

  /** @param {Buffer} chunk */
  feed(chunk) {
    let i = 0;
    if (this.state === 'header') {
      i = this.takeHeader(chunk);
      if (i < 0) return;
    }
    while (i < chunk.length && i >= 0) {
      if (this.state === 'key') i = this.takeKey(chunk, i);
      else if (this.state === 'value') i = this.takeValue(chunk, i);
      else return; // 'end': whatever follows the closing brace is ignored
    }
  }

  /** Collects bytes up to `"nodes"`; returns where the sections start, or -1 for "more". */
  takeHeader(chunk) {
    this.headerChunks.push(chunk);
    const all = this.headerChunks.length === 1 ? chunk : Buffer.concat(this.headerChunks);
    const at = all.indexOf(NODES_KEY);
    if (at < 0) {
      if (all.length > HEADER_LIMIT) throw snapshotError(this.file, `no "nodes" section in its first ${HEADER_LIMIT} bytes`);
      return -1;
    }
    this.header = parseHeader(this.file, all.toString('utf8', 0, at));
    this.headerChunks = [];
    this.state = 'key';
    const consumed = all.length - chunk.length;
    return at - consumed >= 0 ? at - consumed : this.rescan(all, at);
  }

  /** The `"nodes"` key straddled chunks: feed the tail of the joined header bytes instead. */
  rescan(all, at) {
    this.feed(all.subarray(at));
    return -1;
  }

  /** Reads `,"name":[`; a closing `}` ends the document. */
  takeKey(buf, i) {
    for (; i < buf.length; i++) {
      const c = String.fromCharCode(buf[i]);
      if (c === '[') {
        const m = /^[\s,]*"(\w+)"\s*:\s*$/.exec(this.pendingKey);
        if (!m) throw snapshotError(this.file, 'a section without a name');
        this.pendingKey = '';
        this.startValue(m[1]);
        return i + 1;
      }
      if (c === '}' && /^[\s,]*$/.test(this.pendingKey)) {
        this.state = 'end';
        return buf.length;
      }
      this.pendingKey += c;
      if (this.pendingKey.length > KEY_LIMIT) throw snapshotError(this.file, 'garbled between sections');
    }
    return i;
  }

  startValue(key) {
    const { header } = this;
    this.key = key;
    this.state = 'value';
    if (key === 'nodes') this.scanner = new NumberArrayScanner(allocate(this.file, header.nodeCount * header.nodeFields), { name: key });
    else if (key === 'edges') this.scanner = new NumberArrayScanner(allocate(this.file, header.edgeCount * header.edgeFields), { name: key });
    else if (key === 'locations') this.scanner = new NumberArrayScanner(new Uint32Array(1024), { name: key, grow: true });
    else if (key === 'strings') this.scanner = new StringArrayScanner();
    else this.scanner = new SkipScanner(key);
  }

  takeValue(buf, i) {
    let next;
    try {
      next = this.scanner.scan(buf, i);
    } catch (err) {
      throw snapshotError(this.file, err.message);
    }
    if (next < 0) return buf.length;
    const s = this.scanner;
    if (s instanceof NumberArrayScanner) this.sections[this.key] = s.values();
    else if (s instanceof StringArrayScanner) this.sections.strings = s.strings;
    this.scanner = null;
    this.state = 'key';
    return next;
  }

  /** @returns {Snapshot} */
  finish() {
    const { header, sections } = this;
    if (this.state === 'header') throw snapshotError(this.file, 'no "nodes" section (empty or not a heap snapshot)');
    if (this.state !== 'end') throw snapshotError(this.file, `truncated inside "${this.key || 'between sections'}"`);
    for (const key of ['nodes', 'edges', 'strings']) if (!sections[key]) throw snapshotError(this.file, `no "${key}" section`);
    if (sections.nodes.length !== header.nodeCount * header.nodeFields) throw snapshotError(this.file, `"nodes" holds ${sections.nodes.length / header.nodeFields} nodes, the header says ${header.nodeCount}`);
    if (sections.edges.length !== header.edgeCount * header.edgeFields) throw snapshotError(this.file, `"edges" holds ${sections.edges.length / header.edgeFields} edges, the header says ${header.edgeCount}`);
    return {
      meta: header.meta, nodeCount: header.nodeCount, edgeCount: header.edgeCount,
      nodes: sections.nodes, edges: sections.edges, locations: sections.locations ?? new Uint32Array(0), strings: sections.strings,
    };
  }
}

function allocate(file, length) {
  try {
    return new Uint32Array(length);
  } catch (err) {
    throw snapshotError(file, `its header asks for ${length} values (${err.message})`);
  }
}

/** `{"snapshot":{…},` → the meta and the counts, checked. */
function parseHeader(file, text) {
  let snapshot;
  try {
    ({ snapshot } = JSON.parse(`${text.replace(/[\s,]*$/, '')}}`));
  } catch (err) {
    throw snapshotError(file, `its header is not JSON (${err.message})`);
  }
  const meta = snapshot?.meta;
  const ok = meta && Array.isArray(meta.node_fields) && Array.isArray(meta.edge_fields) && Array.isArray(meta.node_types?.[0]) && Array.isArray(meta.edge_types?.[0]);
  if (!ok) throw snapshotError(file, 'its header has no node and edge field lists');
  for (const f of ['type', 'name', 'self_size', 'edge_count']) if (!meta.node_fields.includes(f)) throw snapshotError(file, `nodes have no "${f}" field`);
  for (const f of ['type', 'name_or_index', 'to_node']) if (!meta.edge_fields.includes(f)) throw snapshotError(file, `edges have no "${f}" field`);
  const count = (n) => (Number.isSafeInteger(n) && n >= 0 ? n : NaN);
  const nodeCount = count(snapshot.node_count), edgeCount = count(snapshot.edge_count);
  if (Number.isNaN(nodeCount) || Number.isNaN(edgeCount) || nodeCount === 0) throw snapshotError(file, 'its header has no node or edge count');
  return { meta, nodeCount, edgeCount, nodeFields: meta.node_fields.length, edgeFields: meta.edge_fields.length };
}
