// Does a holder keep what a leak's allocation site made? The sampling profile names the function
// that allocated (`handle` at app.js:20); the snapshot knows each object's constructor and, in
// each function's feedback vector, the functions it called or constructed. So a holder matches a
// site when its elements' constructor is the site's function, is declared at the site's line, or
// is called by the site's function (or by a function it calls: two steps, no further).
import { fileOf } from '../core/sites/frames.js';
import { NONE } from './graph.js';

export const STRONG = 3;
export const SAME_FILE = 1.5;
const CALL_DEPTH = 2;

export class SiteLinks {
  /**
   * @param {import('./graph.js').Graph} g @param {import('./scripts.js').Scripts} scripts
   * @param {{ fn?: string, file?: string, line?: number }[]} sites @param {string} [cwd]
   */
  constructor(g, scripts, sites, cwd = '') {
    this.g = g;
    this.scripts = scripts;
    this.sites = sites.map((s) => ({ fn: s.fn, file: fileOf(String(s.file ?? ''), cwd), line: Number(s.line) || 0 }));
    this.callees = this.sites.length ? this.calleesOfSites() : new Set();
  }

  /**
   * ×3 for a strong match, ×1.5 when only the file is the same, 1 otherwise.
   * @param {{ type: string, sample: number }} cand @param {{ holderFile?: string, elementSite: { file: string, line: number } | null }} d
   */
  boost(cand, d) {
    let best = 1;
    const ctor = constructorOf(this.g, cand.sample);
    if (ctor !== NONE && this.callees.has(ctor)) return STRONG;
    for (const site of this.sites) {
      const el = d.elementSite;
      if (site.fn && site.fn === cand.type) return STRONG;
      if (el && sameFile(el.file, site.file) && Math.abs(site.line - el.line) <= 1) return STRONG;
      if ((el && sameFile(el.file, site.file)) || sameFile(d.holderFile, site.file)) best = SAME_FILE;
    }
    return best;
  }

  /** The functions the sites' functions called or constructed, from their feedback vectors. */
  calleesOfSites() {
    const { g } = this;
    const out = new Set();
    let frontier = this.siteClosures();
    for (let depth = 0; depth < CALL_DEPTH && frontier.length; depth++) {
      const next = [];
      for (const fn of frontier) {
        const vector = g.child(g.child(fn, 'feedback_cell'), 'value');
        if (vector === NONE) continue;
        for (let e = g.firstEdge[vector]; e < g.firstEdge[vector + 1]; e++) {
          const to = g.edgeTo(e);
          if (g.type(to) === g.NT.closure && !out.has(to)) {
            out.add(to);
            next.push(to);
          }
        }
      }
      frontier = next;
    }
    return out;
  }

  /** Closures declared at a site: same file, the line within one, and the name when it has one. */
  siteClosures() {
    const { g, scripts } = this, L = g.locations, LF = g.locationFields;
    const found = [];
    for (let k = 0; k < L.length; k += LF) {
      const node = L[k] / g.NF, line = L[k + 2] + 1;
      if (g.type(node) !== g.NT.closure) continue;
      const site = this.sites.find((s) => Math.abs(s.line - line) <= 1 && (!s.fn || s.fn === g.name(node) || s.fn === '(anonymous)'));
      if (site && sameFile(scripts.display(scripts.scriptName(L[k + 1])), site.file)) found.push(node);
    }
    return found;
  }
}

/** An object's constructor: its hidden class's, back through the map transitions that added fields. */
function constructorOf(g, node) {
  if (g.type(node) !== g.NT.object) return NONE;
  let map = g.child(node, 'map');
  for (let step = 0; step < 64 && map !== NONE; step++) {
    const ctor = g.child(map, 'constructor');
    if (ctor !== NONE) return g.type(ctor) === g.NT.closure ? ctor : NONE;
    map = g.child(map, 'back_pointer');
  }
  return NONE;
}

/** Same file, whichever side is relative: `app.js` and `/srv/app/app.js`. */
export function sameFile(a, b) {
  if (!a || !b) return false;
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}
