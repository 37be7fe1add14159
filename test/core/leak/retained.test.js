// A fast leak named from what a worker retained: which part grew and how fast, from its samples;
// the sites from a profile read at the decision; the slot's story across workers that fill alike.
import test from 'ava';
import { retainedOf, fillsFast, sameRateStreak } from '../../../src/core/leak/retained.js';
import { liveSites } from '../../../src/core/sites/heap-sites.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';

const MiB = 1024 * 1024;

function windowOf(rows) {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  for (const [t, treeRss, heapUsed = 10 * MiB, external = MiB, native = 30 * MiB] of rows) {
    w.push({ t, rss: treeRss, treeRss, heapUsed, external, native, childrenRss: 0 });
  }
  return w;
}

test('retainedOf: the part that explains the growth and the tree\'s rate per minute, from readiness on', (t) => {
  const heap = windowOf([[0, 40 * MiB], [1000, 50 * MiB, 20 * MiB], [11_000, 70 * MiB, 40 * MiB], [21_000, 90 * MiB, 60 * MiB]]);
  t.deepEqual(retainedOf(heap, 0), { kind: 'heap', bytesPerMin: 120 * MiB });
  const ext = windowOf([[1000, 50 * MiB, 10 * MiB, 1 * MiB], [11_000, 70 * MiB, 10 * MiB, 21 * MiB], [21_000, 90 * MiB, 10 * MiB, 41 * MiB]]);
  t.is(retainedOf(ext, 0).kind, 'external');
  const spread = windowOf([[1000, 50 * MiB, 10 * MiB, 1 * MiB, 30 * MiB], [11_000, 70 * MiB, 18 * MiB, 8 * MiB, 35 * MiB], [21_000, 90 * MiB, 25 * MiB, 15 * MiB, 41 * MiB]]);
  t.is(retainedOf(spread, 0).kind, 'rss', 'no part explains most of it: the tree\'s');
  // The newest sample without the agent's fields (its reply late, the worker in the full GC before
  // the recycle): the parts are read from their own newest values, and the heap still names it.
  heap.push({ t: 22_000, rss: 92 * MiB, treeRss: 92 * MiB, heapUsed: null, external: null, native: null, childrenRss: 0 });
  t.is(retainedOf(heap, 0).kind, 'heap');
  // heap-leak-fast at 120 MB/min under a 160 MB rss limit, Node 24: a sample 3 s after ready and
  // the one at its recycle. heapUsed grew 42.6 of 91.5 MB; the heap RSS holds grew 86.7 MB, the
  // rest is the young generation and garbage between major GCs: the heap's, not the tree's.
  const MB = 1e6;
  const young = new SampleWindow({ maxAgeMs: 600_000 });
  young.push({ t: 3000, rss: 79.9 * MB, treeRss: 79.9 * MB, heapUsed: 15.8 * MB, heapPhysical: 20.8 * MB, external: 4.26 * MB, native: 54.8 * MB, childrenRss: 0 });
  young.push({ t: 13_000, rss: 125 * MB, treeRss: 125 * MB, heapUsed: 37 * MB, heapPhysical: 63 * MB, external: 4.27 * MB, native: 57.7 * MB, childrenRss: 0 });
  young.push({ t: 23_271, rss: 171.4 * MB, treeRss: 171.4 * MB, heapUsed: 58.4 * MB, heapPhysical: 107.5 * MB, external: 4.27 * MB, native: 59.6 * MB, childrenRss: 0 });
  t.is(retainedOf(young, 0).kind, 'heap');
  t.is(retainedOf(windowOf([[1000, 50 * MiB], [1500, 55 * MiB], [1900, 60 * MiB]]), 0), null, 'a life too short to give a rate');
  t.is(retainedOf(windowOf([[1000, 50 * MiB], [3000, 60 * MiB]]), 0), null, 'two samples are not enough');
});

test('fillsFast: a steady rise that reaches the limit within a minute; a flat, slow or stepping one does not', (t) => {
  const limit = 128 * MiB;
  t.true(fillsFast(windowOf([[0, 45 * MiB], [1000, 47 * MiB], [2000, 49 * MiB], [3000, 51 * MiB]]), limit, 3000), '2 MiB/s: 38 s to go');
  t.false(fillsFast(windowOf([[0, 45 * MiB], [1000, 45.1 * MiB], [2000, 45.2 * MiB], [3000, 45.3 * MiB]]), limit, 3000), '0.1 MiB/s: 14 min to go');
  t.false(fillsFast(windowOf([[0, 45 * MiB], [1000, 90 * MiB], [2000, 90 * MiB], [3000, 90 * MiB]]), limit, 3000), 'a step, then flat');
  t.false(fillsFast(windowOf([[2000, 49 * MiB], [3000, 51 * MiB]]), limit, 3000), 'two samples say nothing');
  t.false(fillsFast(windowOf([[0, 45 * MiB], [1000, 47 * MiB], [2000, 49 * MiB]]), null, 2000), 'no limit');
});

test('sameRateStreak: workers in a row filling within ±35 % of the newest, with the last site named; a change of rate ends it', (t) => {
  const site = [{ fn: 'cachePage', file: 'lib/pages.js', line: 9 }];
  const r = (bytesPerMin, sites = null, kind = 'heap') => ({ at: 0, kind, bytesPerMin: bytesPerMin * MiB, sites });
  t.deepEqual(sameRateStreak([r(30), r(118, site), r(121), r(125)]), { workers: 3, kind: 'heap', bytesPerMin: Math.round(((118 + 121 + 125) / 3) * MiB), sites: site });
  t.is(sameRateStreak([r(120)]), null, 'one worker is not a story');
  t.is(sameRateStreak([r(120), r(60)]), null, 'half the rate: another story');
  t.is(sameRateStreak([r(120, null, 'external'), r(120)]), null, 'another kind');
  t.is(sameRateStreak([r(120), r(120)]).sites, null, 'no site named yet');
});

test('liveSites: the sites holding a tenth or more of what the profile sampled live, largest first, with their share of the fill rate', (t) => {
  const profile = { total: 100, sites: [{ fn: 'tiny', file: 'a.js', line: 1, bytes: 5 }, { fn: 'b', file: 'b.js', line: 2, bytes: 25 }, { fn: 'a', file: 'a.js', line: 3, bytes: 70 }] };
  t.deepEqual(liveSites(profile, 60 * MiB), [
    { fn: 'a', file: 'a.js', line: 3, bytesPerMin: 42 * MiB, share: 0.7 },
    { fn: 'b', file: 'b.js', line: 2, bytesPerMin: 15 * MiB, share: 0.25 },
  ]);
  t.deepEqual(liveSites(profile).map((s) => s.bytesPerMin), [undefined, undefined], 'no fill rate known: shares only');
  t.deepEqual(liveSites(null), []);
  t.deepEqual(liveSites({ total: 0, sites: [] }), []);
});

test('knownLeak: a worker\'s own verdict first, else its slot\'s leak across workers in the verdict\'s shape, else null', async (t) => {
  const { knownLeak } = await import('../../../src/core/leak/slot-story.js');
  const sites = [{ fn: 'cachePage', file: 'lib/pages.js', line: 9, share: 0.9 }];
  const own = { kind: 'external', growthBytesPerSec: 1000 };
  const policy = {
    workers: { 7: { leak: own }, 8: {} },
    slots: [{ named: { kind: 'heap', bytesPerMin: 120 * MiB, workers: 4, sites } }, { named: null }],
  };
  t.is(knownLeak(policy, { id: 7, slot: 0 }), own);
  t.deepEqual(knownLeak(policy, { id: 8, slot: 0 }), { kind: 'heap', growthBytesPerSec: 2 * MiB, workersInRow: 4, sites });
  t.is(knownLeak(policy, { id: 9, slot: 1 }), null);
});
