// What holds the memory that grew, from a heap snapshot: read it, find dominators and retained
// sizes, find the collections that keep many objects of one kind, and name the best few by the
// path the app's code declares. In-process (tests, a caller that already runs apart from the
// supervisor); analyse-main.js is the same in a child bounded by --max-old-space-size.
import { performance } from 'node:perf_hooks';
import { NodesupError } from '../errors.js';
import { readSnapshot } from './read-snapshot.js';
import { Graph } from './graph.js';
import { dominators } from './dominators.js';
import { findCandidates } from './holders.js';
import { Scripts } from './scripts.js';
import { describe } from './describe.js';
import { rankHolders } from './rank.js';
import { SiteLinks } from './sites.js';

/**
 * @typedef {{ kind?: 'heap' | 'external', growthBytes?: number, sites?: { fn: string, file: string, line: number, package?: string }[], cwd?: string }} Hints
 * @typedef {{ bytes: number, share: number, count: number, type: string, path: string[], holder: { name: string, file?: string, line?: number, package?: string } }} Held
 * @typedef {{ heapBytes: number, nodes: number, parseMs: number, analysisMs: number, peakRssBytes?: number, held: Held[] }} Report
 */

/**
 * @param {string} file a .heapsnapshot
 * @param {Hints} [hints] what the supervisor knows about what grew
 * @param {{ highWaterMark?: number }} [opts]
 * @returns {Promise<Report>}
 */
export async function analyseSnapshot(file, hints = {}, opts = {}) {
  const h = checkHints(hints);
  const t0 = performance.now();
  const snap = await readSnapshot(file, opts);
  const g = new Graph(snap, file);
  const t1 = performance.now();
  const dom = dominators(g);
  const candidates = findCandidates(g, dom);
  const scripts = new Scripts(g, { cwd: h.cwd });
  const links = new SiteLinks(g, scripts, h.sites, h.cwd);
  const held = rankHolders(candidates, dom, h, (c) => describe(g, scripts, links, c));
  const t2 = performance.now();
  return { heapBytes: dom.retained[0], nodes: g.N, parseMs: Math.round(t1 - t0), analysisMs: Math.round(t2 - t1), held };
}

/** @param {Hints} hints */
export function checkHints(hints) {
  const bad = (key, expected, got) => new NodesupError('NODESUP_ERR_USAGE', `retainer hints: ${key}: expected ${expected}, got ${JSON.stringify(got)?.slice(0, 60)}`);
  if (hints === null || typeof hints !== 'object' || Array.isArray(hints)) throw bad('hints', 'an object', hints);
  const { kind = 'heap', growthBytes, sites = [], cwd } = hints;
  if (kind !== 'heap' && kind !== 'external') throw bad('kind', "'heap' or 'external'", kind);
  if (growthBytes !== undefined && !(Number.isFinite(growthBytes) && growthBytes >= 0)) throw bad('growthBytes', 'a number of bytes', growthBytes);
  if (!Array.isArray(sites) || sites.some((s) => s === null || typeof s !== 'object')) throw bad('sites', 'an array of {fn, file, line}', sites);
  if (cwd !== undefined && typeof cwd !== 'string') throw bad('cwd', 'a directory', cwd);
  return { kind, growthBytes, sites, cwd };
}
