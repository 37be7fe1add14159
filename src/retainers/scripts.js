// Where a thing was declared, from what the snapshot carries: a closure → its SharedFunctionInfo →
// its Script, whose name is the file's URL or path; `locations` give a function's (or an object's
// constructor's) script id, line and column. The declaring line of a variable is found in the file
// on disk, because V8 cuts every string in a snapshot (a script's source too) at 1024 characters.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NONE } from './graph.js';
import { libraryOf } from '../core/sites/frames.js';

const MAX_SOURCE_BYTES = 8 << 20;

export class Scripts {
  /** @param {import('./graph.js').Graph} g @param {{ cwd?: string }} [opts] */
  constructor(g, { cwd } = {}) {
    this.g = g;
    this.cwd = cwd;
    /** @type {Map<number, string>} script id → URL or path */ this.byId = null;
    this.sources = new Map();
    this.packages = new Map();
  }

  /** The script name (URL or path) of a closure, or ''. */
  scriptOfClosure(closure) {
    const { g } = this;
    const shared = g.child(closure, 'shared');
    if (shared === NONE) return '';
    let script = g.child(shared, 'script_or_debug_info');
    if (script === NONE) script = g.child(shared, 'script');
    if (script === NONE) return '';
    if (g.name(script).startsWith('system / DebugInfo')) script = g.child(script, 'script');
    if (script === NONE) return '';
    // V8 names a Script's node by its name's text, flattened; the `name` edge's node may be a
    // sliced string (Node 22+ compiles an imported CommonJS module under a name sliced from its
    // file:// URL), whose node name is the placeholder "(sliced string)", not its text.
    const own = g.name(script);
    if (realName(own)) return own;
    const text = stringText(g, g.child(script, 'name'), 0);
    return realName(text) ? text : '';
  }

  /** Script id → name, learnt once from every closure that has a location. */
  scriptName(scriptId) {
    if (!this.byId) {
      this.byId = new Map();
      const { g } = this, L = g.locations, LF = g.locationFields;
      for (let k = 0; k < L.length; k += LF) {
        const node = L[k] / g.NF;
        if (this.byId.has(L[k + 1]) || g.type(node) !== g.NT.closure) continue;
        const name = this.scriptOfClosure(node);
        if (name) this.byId.set(L[k + 1], name);
      }
    }
    return this.byId.get(scriptId) ?? '';
  }

  /** The file a scope belongs to: from a closure that closes over the Context. */
  contextSite(ctx) {
    const { g } = this;
    for (let r = g.firstRetainer[ctx]; r < g.firstRetainer[ctx + 1]; r++) {
      const from = g.retainers[r];
      if (g.type(from) !== g.NT.closure || g.child(from, 'context') !== ctx) continue;
      const script = this.scriptOfClosure(from);
      if (script) return { script, line: (g.location(from)?.line ?? -1) + 1 };
    }
    return null;
  }

  /** A script name as the user knows it: relative to the app's directory when inside it. */
  display(script) {
    const abs = absolutePath(script);
    if (!abs) return script;
    if (this.cwd) {
      const rel = path.relative(this.cwd, abs);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
    }
    return abs;
  }

  /** `{ name, version? }` when the script lies inside node_modules/<pkg>/, else undefined. */
  packageOf(script) {
    const abs = absolutePath(script);
    const lib = abs ? libraryOf(abs.split(path.sep).join('/')) : null;
    if (!lib) return undefined;
    if (!this.packages.has(lib.dir)) this.packages.set(lib.dir, readPackage(lib.dir, lib.name));
    return this.packages.get(lib.dir);
  }

  /** The 1-based line declaring `name` in the script (const/let/var/function/class, then `name =`/`name:`), or 0. */
  declarationLine(script, name) {
    const source = this.source(script);
    if (!source || !/^[A-Za-z_$][\w$]*$/.test(name)) return 0;
    const patterns = [new RegExp(`\\b(?:const|let|var|function\\*?|class)\\s+${escape(name)}\\b`), new RegExp(`(?:^|[\\s.{,])${escape(name)}\\s*(?:=(?!=)|:)`, 'm')];
    for (const re of patterns) {
      const m = re.exec(source);
      if (m) return source.slice(0, m.index + m[0].indexOf(name)).split('\n').length;
    }
    return 0;
  }

  source(script) {
    if (!this.sources.has(script)) {
      const abs = absolutePath(script);
      let text = '';
      try {
        if (abs && fs.statSync(abs).size <= MAX_SOURCE_BYTES) text = fs.readFileSync(abs, 'utf8');
      } catch {
        // Moved or deleted since the snapshot: the line falls back to the closure's.
      }
      this.sources.set(script, text);
    }
    return this.sources.get(script);
  }
}

const MAX_STRING_DEPTH = 8;

/** A script name, not V8's label for a node (`system / Script`, `(sliced string)`, ''). */
const realName = (name) => Boolean(name) && !name.startsWith('system /') && !/^\(.*\)$/.test(name);

/**
 * A string node's text, or '' when the snapshot does not keep it: a flat string's node name is its
 * text; a concatenated one's is its `first` and `second` parts'; a sliced one's is a part of its
 * `parent` at an offset the snapshot does not record, so it is unknown.
 */
function stringText(g, node, depth) {
  if (node === NONE || depth > MAX_STRING_DEPTH) return '';
  const type = g.typeName(node);
  if (type === 'string') return g.name(node);
  if (type !== 'concatenated string') return '';
  const first = stringText(g, g.child(node, 'first'), depth + 1);
  const second = first && stringText(g, g.child(node, 'second'), depth + 1);
  return first && second ? first + second : '';
}

const escape = (s) => s.replace(/[$]/g, '\\$');

/** file:///a/b.js or /a/b.js → /a/b.js; node:internal, evalmachine and the like → null. */
export function absolutePath(script) {
  if (script.startsWith('file://')) {
    try {
      return fileURLToPath(script);
    } catch {
      return null;
    }
  }
  return path.isAbsolute(script) ? script : null;
}

function readPackage(dir, name) {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return { name: typeof pkg.name === 'string' ? pkg.name : name, version: typeof pkg.version === 'string' ? pkg.version : undefined };
  } catch {
    return { name };
  }
}
