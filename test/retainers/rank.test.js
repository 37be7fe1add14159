// Ranking rules that need no snapshot: candidates, dominators and descriptions made up to order.
import test from 'ava';
import { rankHolders } from '../../src/retainers/rank.js';
import { NONE } from '../../src/retainers/graph.js';

/** Two holders under the root: Node's builtin module map, and an app's cache that kept `cacheBytes`. */
function rank(hints, cacheBytes) {
  const builtin = { holder: 1, type: 'BuiltinModule', count: 381, dominated: 381, sample: 3 };
  const cache = { holder: 2, type: 'string', count: 100_000, dominated: 100_000, sample: 4 };
  const dom = { idom: Uint32Array.from([NONE, 0, 0, 1, 2]), retained: Float64Array.from([cacheBytes + 400_000, 280_000, cacheBytes, 0, 0]) };
  const paths = { 1: ['(module) node:internal/bootstrap/realm', 'BuiltinModule', 'map', 'Map'], 2: ['(closure) /srv/node_modules/memo/lib/configure.js', 'cache', 'Object'] };
  const describe = (c) => ({ path: paths[c.holder], holder: { name: paths[c.holder].slice(1, -1).join('.') }, elementSite: null, siteBoost: 1 });
  return rankHolders([builtin, cache], dom, hints, describe).map((h) => h.holder.name);
}

test('a node: holder whose size fits the growth never outranks an app holder that keeps all of it', (t) => {
  // 40 MB kept against 280 kB measured: √(0.28/40) ≈ 0.084 for the cache, 1 × 0.86 × 0.1 for Node's map.
  t.deepEqual(rank({ growthBytes: 280_000 }, 40_000_000), ['cache', 'BuiltinModule.map']);
});

test('a node: holder still ranks by its score when no app holder keeps half of what grew', (t) => {
  // 20 kB kept against 280 kB measured: 0.07 for the cache; Node's map fits the size (0.086).
  t.deepEqual(rank({ growthBytes: 280_000 }, 20_000), ['BuiltinModule.map', 'cache']);
});
