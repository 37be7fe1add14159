// Signals a worker together with every process below it. Descendants are collected before the
// signal: once a parent dies its children are re-parented to init and can no longer be found.
import { descendantsOf, hasChildrenFiles } from '../../proc/descendants.js';
import { startTime } from '../../proc/memory.js';

/** Every pid in pid's tree (pid first); pidtree (one `ps`) where /proc has no children lists. */
export async function treeOf(pid) {
  if (hasChildrenFiles) return [pid, ...descendantsOf(pid)];
  try {
    // Loaded only here: where /proc has children lists (Linux) the primary never needs it.
    const { default: pidtree } = await import('pidtree');
    return [pid, ...(await pidtree(pid))];
  } catch {
    return [pid];
  }
}

/** Send signal to each pid; returns how many were still there to receive it. */
export function signalAll(pids, signal) {
  let hit = 0;
  for (const p of pids) {
    try {
      process.kill(p, signal);
      hit++;
    } catch { /* gone already */ }
  }
  return hit;
}

/** Pids from a remembered list that are still the same processes (start time unchanged). */
export function stillAlive(known) {
  return known.filter(({ pid, start }) => start !== null && startTime(pid) === start).map(({ pid }) => pid);
}

/** Remember a tree with start times, so a later kill cannot hit a recycled pid. */
export function rememberTree(pids) {
  return pids.map((pid) => ({ pid, start: startTime(pid) }));
}

/**
 * rec's whole tree now, with start times, synchronously from /proc (no await between this and a
 * signal). Where /proc has no children lists the poll ticks' pidtree listing is all we have: [].
 */
export function wholeTreeNow(rec) {
  if (!hasChildrenFiles) return [];
  return rememberTree([rec.pid, ...descendantsOf(rec.pid)]);
}
