// Immediate dominators and retained sizes from the synthetic root, over essential edges only, by
// the iterative Cooper–Harvey–Kennedy algorithm on post-order numbers (as Chrome DevTools does):
// simple, and on heap graphs it settles in a few passes. Nodes reachable only through weak edges
// get no dominator (NONE) and count in nobody's retained size.
import { NONE } from './graph.js';

/**
 * @param {import('./graph.js').Graph} g
 * @returns {{ idom: Uint32Array, retained: Float64Array, reachable: number, passes: number }}
 */
export function dominators(g) {
  const { postOrder, order, reachable } = postOrderFromRoot(g);
  const { domPo, passes } = dominatorsByPostOrder(g, postOrder, order, reachable);
  const idom = new Uint32Array(g.N).fill(NONE);
  const retained = new Float64Array(g.N);
  for (let i = 0; i < g.N; i++) retained[i] = g.selfSize(i);
  // Post order visits a node before its dominator, so sizes flow up in one sweep.
  for (let po = 0; po < reachable - 1; po++) {
    const node = order[po], dom = order[domPo[po]];
    idom[node] = dom;
    retained[dom] += retained[node];
  }
  idom[0] = 0;
  for (let i = 0; i < g.N; i++) if (idom[i] === NONE) retained[i] = 0;
  return { idom, retained, reachable, passes };
}

/** Iterative DFS from the root: `postOrder[node]` (NONE if unreached) and `order[po]` = node. */
function postOrderFromRoot(g) {
  const { N, firstEdge } = g;
  const postOrder = new Uint32Array(N).fill(NONE);
  const order = new Uint32Array(N);
  const visited = new Uint8Array(N);
  const stackNode = new Uint32Array(N), stackEdge = new Uint32Array(N);
  let top = 0, po = 0;
  stackNode[0] = 0;
  stackEdge[0] = firstEdge[0];
  visited[0] = 1;
  while (top >= 0) {
    const node = stackNode[top], e = stackEdge[top];
    if (e < firstEdge[node + 1]) {
      stackEdge[top] = e + 1;
      if (!g.essential(node, e)) continue;
      const to = g.edgeTo(e);
      if (visited[to]) continue;
      visited[to] = 1;
      top++;
      stackNode[top] = to;
      stackEdge[top] = firstEdge[to];
    } else {
      postOrder[node] = po;
      order[po++] = node;
      top--;
    }
  }
  return { postOrder, order, reachable: po };
}

function dominatorsByPostOrder(g, postOrder, order, reachable) {
  const rootPo = reachable - 1;
  const dom = new Uint32Array(reachable).fill(NONE);
  dom[rootPo] = rootPo;
  const { firstRetainer, retainers } = g;
  let changed = true, passes = 0;
  while (changed) {
    changed = false;
    passes++;
    for (let po = rootPo - 1; po >= 0; po--) {
      const node = order[po];
      let best = NONE;
      for (let r = firstRetainer[node]; r < firstRetainer[node + 1]; r++) {
        const p = postOrder[retainers[r]];
        if (p === NONE || dom[p] === NONE) continue;
        best = best === NONE ? p : intersect(dom, p, best);
      }
      if (dom[po] !== best) {
        dom[po] = best;
        changed = true;
      }
    }
  }
  return { domPo: dom, passes };
}

function intersect(dom, a, b) {
  while (a !== b) {
    while (a < b) a = dom[a];
    while (b < a) b = dom[b];
  }
  return a;
}
