// What the benches that take `--old DIR` share: DIR is another checkout of nodesup (a worktree of
// the commit to compare against, with its own node_modules), run leg by leg against this one.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './args.js';
import { commitOf } from './results.js';
import { scratch } from './spawn.js';
import { ci95, fx } from './stats.js';

export const OLD_USAGE = '--old DIR: DIR is another checkout of nodesup, e.g. `git worktree add /tmp/nodesup-old <commit> && (cd /tmp/nodesup-old && npm ci)`';

/** The checkout at dir, checked before any leg runs: a bad path found an hour in costs the hour. */
export function oldTree(dir) {
  const fail = (why) => { process.stderr.write(`--old ${dir}: ${why}\n${OLD_USAGE}\n`); process.exit(2); };
  let root;
  try { root = fs.realpathSync(path.resolve(dir)); } catch { fail('no such directory'); }
  if (!fs.existsSync(path.join(root, 'bin/nodesup.js'))) fail('no bin/nodesup.js there: not a checkout of nodesup');
  if (!fs.existsSync(path.join(root, 'node_modules'))) fail('no node_modules there: run `npm ci` inside it');
  if (root === fs.realpathSync(ROOT)) fail('that is this checkout: old and new would be the same code');
  return { root, commit: commitOf(root) ?? 'unknown commit' };
}

/**
 * The order of pair i: old first in even pairs, new first in odd ones, so whatever favours the
 * first or the second leg of a pair (a warmer page cache, a host slowing down) falls on both alike.
 */
export const pairOrder = (i) => (i % 2 ? ['new', 'old'] : ['old', 'new']);

/** new ÷ old per pair, as [mean, low, high] of the 95 % interval; pairs with a missing side are left out. */
export function ratioCi(olds, news) {
  const rs = news.map((n, i) => n / olds[i]).filter((r) => Number.isFinite(r));
  return { ratios: rs, ci: ci95(rs) };
}

/** '1.012 (0.990–1.034)' */
export const ciText = ([m, lo, hi], digits = 3) => `${fx(m, digits)} (${fx(lo, digits)}–${fx(hi, digits)})`;

/**
 * The verdict the lead reads: for throughput (higher is better) nothing got slower while the
 * interval of new ÷ old reaches 1; for a cost (lower is better) nothing got costlier while it
 * reaches 1. `at`: 0 for an interval of differences (new − old) rather than of ratios.
 */
export function verdict({ ratios, ci: [, lo, hi] }, { better, at = 1 }) {
  if (ratios.length < 2) return 'no verdict (an interval needs at least 2 pairs)';
  if (better === 'higher') {
    if (lo > at) return `faster (the whole interval is above ${at})`;
    return hi >= at ? `not slower (the interval reaches ${at})` : `slower (the whole interval is below ${at})`;
  }
  if (hi < at) return `lower (the whole interval is below ${at})`;
  return lo <= at ? `not higher (the interval reaches ${at})` : `higher (the whole interval is above ${at})`;
}

/**
 * A scratch copy of the checkout at root (bin/, src/, package.json; node_modules linked) whose slot
 * history starts full: on each slot's first sample, 6 hours of samples like it and the event lists'
 * worth of recycles and leak warnings are fed to that slot's history alone. A real primary takes 6
 * hours to get there, and a footprint measured before it is not the one a long-running primary
 * has. Both checkouts get the same copy, so the comparison stays like for like.
 */
export function withFullSlotHistory(root) {
  const dir = scratch('nodesup-full-history-');
  for (const part of ['bin', 'src']) fs.cpSync(path.join(root, part), path.join(dir, part), { recursive: true });
  fs.copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const file = findFile(path.join(dir, 'src'), (text) => text.includes('export function createSlotHistory('));
  if (!file) throw new Error(`${root}: no src file exports createSlotHistory; the history cannot be filled there`);
  const url = (p) => JSON.stringify(pathToFileURL(p).href);
  // The module's own limits and the checkout's own event names, read through namespaces so that
  // one the refactor renamed falls back to a default instead of failing to load the primary.
  // A function declaration's export is a live binding: reassigning it is what every importer calls.
  fs.appendFileSync(file, [
    '',
    `import * as benchSelf from ${url(file)};`,
    `import * as benchConstants from ${url(path.join(dir, 'src/constants.js'))};`,
    `import { fillingSlotHistory as benchFilling } from ${url(path.join(ROOT, 'bench/lib/slot-history-fill.js'))};`,
    'createSlotHistory = benchFilling(createSlotHistory, benchSelf, benchConstants);',
    '',
  ].join('\n'));
  return dir;
}

function findFile(dir, pred) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { const f = findFile(p, pred); if (f) return f; } else if (e.name.endsWith('.js') && pred(fs.readFileSync(p, 'utf8'))) return p;
  }
  return null;
}
