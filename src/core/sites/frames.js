// What a stack frame is, for naming a site: the app's own code, a library's (inside node_modules,
// named by package and reached from the app's own frame: `via`), Node's internals, or nodesup's
// own (the agent, its GC through node:vm, its samplers), which is never a site. Shared by the heap
// profile's tree walk and the Buffer sampler's stacks. Pure: urls and paths in, sites as fields out
// (report/site-words.js says them).

/**
 * @typedef {{fn:string, file:string, line:number}} SiteKey
 * @typedef {{file:string, line:number, fn?:string}} Via  the app's own frame that reached a library site
 * @typedef {SiteKey & {package?:string, through?:string, via?:Via, resource?:string}} Site  through: the package the app called, when
 *   another's code allocated; resource: what the site opened that holds the memory ('zlib Deflate')
 */

/** A frame of code on disk (not node:, not internal/, not a builtin with no url). */
export const isCodeFrame = (url) => Boolean(url) && !url.startsWith('node:') && !url.startsWith('internal/');

/** A url (file://, or a CommonJS path) as a path, relative to cwd where it lies inside it. */
export function fileOf(url, cwd = '') {
  let file = url ?? '';
  if (file.startsWith('file://')) file = decodeURIComponent(file.slice('file://'.length));
  if (cwd && file.startsWith(`${cwd}/`)) file = file.slice(cwd.length + 1);
  return file;
}

const NM = 'node_modules/';

/**
 * The package a file belongs to when it lies inside node_modules (the innermost one: a dependency's
 * own dependency is named, not its parent), or null. `dir` is where its package.json is.
 * @param {string} file  a path or file:// url
 * @returns {{name:string, dir:string}|null}
 */
export function libraryOf(file) {
  const path = fileOf(file);
  const at = path.lastIndexOf(NM);
  if (at < 0 || (at > 0 && path[at - 1] !== '/')) return null;
  const rest = path.slice(at + NM.length).split('/');
  const n = rest[0]?.startsWith('@') ? 2 : 1;
  if (rest.length <= n || !rest[n - 1]) return null;
  const name = rest.slice(0, n).join('/');
  return { name, dir: path.slice(0, at + NM.length + name.length) };
}

/**
 * A site's key from a frame: function, file (relative to cwd) and 1-based line. `zeroBased`: the
 * heap profiler's lineNumber counts from 0, a CallSite's from 1.
 */
export function siteOf(f, cwd, { zeroBased = true } = {}) {
  const line = f.lineNumber ?? -1;
  const shown = zeroBased ? (line >= 0 ? line + 1 : 0) : Math.max(line, 0);
  return { fn: f.functionName || '(anonymous)', file: fileOf(f.url, cwd), line: shown };
}

/**
 * Classify one stack, innermost frame first, into the site to name: the innermost frame of code on
 * disk that is not nodesup's; with `via`, the innermost app frame outside node_modules when the site
 * is a library's, and `through`, the package the app called into when it is not the site's own (a
 * cache whose dependency makes the copy it keeps: the team knows the cache, not the dependency).
 * Returns `ours` when the innermost code frame is nodesup's: the allocation is nodesup's own, not
 * the app's, and is left out (not filed under the app's caller). Null: only internals (the caller
 * decides the fallback).
 * @param {{functionName:string, url:string, lineNumber:number}[]} frames  innermost first
 * @param {{ours:(url:string) => boolean, cwd?:string, zeroBased?:boolean}} o
 * @returns {{ours:true}|{ours:false, site:SiteKey, via:Via|null, library:{name:string, dir:string}|null, through?:{name:string, dir:string}}|null}
 */
export function classifyStack(frames, { ours, cwd = '', zeroBased = true }) {
  let site = null;
  let library = null;
  let entry = null; // the outermost library frame so far: the one the app called
  for (const f of frames) {
    if (!isCodeFrame(f.url)) continue;
    if (!site) {
      if (ours(f.url)) return { ours: true };
      site = siteOf(f, cwd, { zeroBased });
      library = libraryOf(f.url);
      if (!library) return { ours: false, site, via: null, library: null };
      entry = library;
      continue;
    }
    if (ours(f.url)) continue;
    const lib = libraryOf(f.url);
    if (lib) {
      entry = lib;
      continue;
    }
    const s = siteOf(f, cwd, { zeroBased });
    return { ours: false, site, via: { file: s.file, line: s.line, fn: s.fn }, library, ...throughOf(library, entry) };
  }
  return site ? { ours: false, site, via: null, library } : null;
}

/** `{through}` when the package the app called (entry) is another than the site's, else nothing. */
export function throughOf(library, entry) {
  return library && entry && entry.dir !== library.dir ? { through: entry } : {};
}
