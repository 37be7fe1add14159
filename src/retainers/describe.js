// A candidate holder in the words of the report: its path from the scope that declares it, its
// name, its declaring file and line, its package, and where its elements' constructor lives.
import { NONE } from './graph.js';
import { chainToHead, pathNames, exporterOf } from './naming.js';
import { kindOf } from './holders.js';

const MAX_NAME_PARTS = 4;

/**
 * @typedef {object} Description
 * @property {string[]} path   e.g. ['(module) app.js', 'recentRequests', 'Array']
 * @property {{ name: string, file?: string, line?: number, package?: string, inside?: string }} holder  package: the declaring
 *   scope's; inside: the library whose object on the path holds it, when the app declares the path
 * @property {string} [holderFile] the file of the declaring scope, as displayed
 * @property {{ file: string, line: number } | null} elementSite  the elements' constructor (or function)
 * @property {number} siteBoost  how well the elements match the leak's allocation sites (sites.js)
 */

/**
 * @param {import('./graph.js').Graph} g @param {import('./scripts.js').Scripts} scripts
 * @param {import('./sites.js').SiteLinks} links @param {import('./holders.js').Candidate} cand
 * @returns {Description}
 */
export function describe(g, scripts, links, cand) {
  const chain = chainToHead(g, cand.holder);
  const names = pathNames(g, chain);
  const type = kindOf(g, cand.holder);
  const head = headOf(g, scripts, chain);
  const holder = { name: holderName(names, type) };
  if (head.script) {
    holder.file = scripts.display(head.script);
    const line = (IDENT.test(names[0] ?? '') && scripts.declarationLine(head.script, names[0])) || head.line;
    if (line > 0) holder.line = line;
    const pkg = scripts.packageOf(head.script);
    if (pkg) holder.package = packageName(pkg);
  }
  const library = holder.package ? undefined : libraryOnPath(g, scripts, chain);
  if (library) holder.inside = packageName(library);
  const d = { path: [head.label, ...names, type], holder, holderFile: holder.file, elementSite: elementSite(g, scripts, cand.sample) };
  return { ...d, siteBoost: links.boost(cand, d) };
}

const IDENT = /^[A-Za-z_$][\w$]*$/;

const packageName = (pkg) => (pkg.version ? `${pkg.name}@${pkg.version}` : pkg.name);

// The library whose object holds the growth on a path the app declares (a prom-client Histogram's
// series map, reached from the app's `const duration`): the first object on the path whose
// constructor lives inside node_modules.
function libraryOnPath(g, scripts, chain) {
  for (const e of chain.edges) {
    const loc = g.location(g.edgeTo(e));
    const script = loc ? scripts.scriptName(loc.scriptId) : '';
    const pkg = script ? scripts.packageOf(script) : undefined;
    if (pkg) return pkg;
  }
  return undefined;
}

/** `bus._events.request`, `sessions[]`, or the holder's type when nothing names it. */
function holderName(names, type) {
  const parts = names.slice(-MAX_NAME_PARTS);
  const text = parts.reduce((s, n) => (n.startsWith('[') ? s + n : s ? `${s}.${n}` : n), '');
  return text || type;
}

/** The head of the path: which scope declares the first name. */
function headOf(g, scripts, chain) {
  if (chain.kind === 'global') return { label: '(global)', script: '', line: 0 };
  let ctx = chain.node;
  if (chain.kind === 'export') ctx = moduleContextOfCell(g, chain.node);
  const site = ctx === NONE || chain.kind === 'unknown' ? null : scripts.contextSite(ctx);
  if (!site) return { label: chain.kind === 'unknown' ? '(internal)' : `(${chain.kind === 'closure' ? 'closure' : 'module'})`, script: '', line: 0 };
  const label = `(${chain.kind === 'closure' ? 'closure' : 'module'}) ${scripts.display(site.script)}`;
  return { label, script: site.script, line: site.line };
}

/**
 * An export's Cell → the exporting module → the module's own Context; where no table keys the Cell
 * by a name, the first module whose table holds it.
 */
function moduleContextOfCell(g, cell) {
  const exporter = exporterOf(g, cell);
  if (exporter) {
    const ctx = contextOfModule(g, exporter.module);
    if (ctx !== NONE) return ctx;
  }
  for (let r = g.firstRetainer[cell]; r < g.firstRetainer[cell + 1]; r++) {
    const table = g.retainers[r];
    for (let k = g.firstRetainer[table]; k < g.firstRetainer[table + 1]; k++) {
      const mod = g.retainers[k];
      const ctx = g.name(mod) === 'system / SourceTextModule' ? contextOfModule(g, mod) : NONE;
      if (ctx !== NONE) return ctx;
    }
  }
  return NONE;
}

function contextOfModule(g, mod) {
  for (let c = g.firstRetainer[mod]; c < g.firstRetainer[mod + 1]; c++) {
    const ctx = g.retainers[c];
    if (g.child(ctx, 'extension') === mod) return ctx;
  }
  return NONE;
}

/** Where the elements come from: the constructor of an object, or the function itself. */
function elementSite(g, scripts, sample) {
  const loc = g.location(sample);
  if (!loc) return null;
  const script = scripts.scriptName(loc.scriptId);
  return script ? { file: scripts.display(script), line: loc.line + 1 } : null;
}
