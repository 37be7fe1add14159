// The workers' share of the container's memory, and the default limit that keeps them in it.
// Where the container has a memory limit and the config sets no memory limit at all, the kernel's
// OOM killer would be the only limit (and under memory.oom.group it takes the whole pod). A flat
// 90 % is not enough: it leaves 10 % for everything else, 51 MiB of a 512 MiB pod, while the
// primary alone takes ~70 MiB (69 MiB at start on Node 20; 66-75 MiB beside 8 to 32 workers,
// bench/RESULTS.md). So the budget is the limit less what is measured or known to need room.
// Pure: the primary's RSS comes in.

const MiB = 1024 * 1024;

/**
 * What the workers' budget keeps out of the container's limit besides the primary's own RSS
 * (measured at start). docs/kubernetes.md, "Safe by default", says each with its reason.
 */
export const BUDGET = Object.freeze({
  // A recycle forks the replacement before the old worker drains, so one fresh worker must fit
  // beside the others: an idle worker with the agent is 46-49 MiB (bench/RESULTS.md, "The
  // primary's own cost"), an app's own modules add to it.
  replacement: 64 * MiB,
  // Of the container's limit: what the kernel charges it beyond the processes' pages (page tables,
  // socket buffers, a memory-backed emptyDir), the primary's growth after start (its history
  // rings, ~150 KiB a slot), and the growth between the poll that sees the crossing and the old
  // worker's exit (a poll, a full GC, the replacement's start-up, the drain).
  share: 0.05,
});

/**
 * Heap snapshots cost many times the heap (core/policy/snapshot-room.js), too much to keep in
 * reserve for every pod: none is taken unless the headroom at that moment covers it, so the
 * default limit keeps nothing back for them.
 */
export const HEAP_SNAPSHOT_BUDGET = 0;

/**
 * What all workers together may take before the container meets its limit, bytes, with its parts;
 * null without a container limit.
 * @param {{cgroupLimit:number|null, primaryRss:number|null}} o
 * @returns {{bytes:number, cgroupLimit:number, primaryRss:number, margin:number, snapshotBudget:number}|null}
 *   bytes may be 0 or less: the container has no room for workers beside the primary
 */
export function workersBudget({ cgroupLimit, primaryRss }) {
  if (!(cgroupLimit > 0)) return null;
  // An unmeasured primary counts as a fresh worker: the same runtime, fewer modules.
  const primary = primaryRss > 0 ? primaryRss : BUDGET.replacement;
  const margin = BUDGET.replacement + Math.ceil(BUDGET.share * cgroupLimit);
  const bytes = cgroupLimit - primary - margin - HEAP_SNAPSHOT_BUDGET;
  return { bytes, cgroupLimit, primaryRss: primary, margin, snapshotBudget: HEAP_SNAPSHOT_BUDGET };
}

/** True when the config sets none of the memory limits (the defaults). */
export function noMemoryLimit(limits) {
  return limits.rss === null && limits.heapUsed === null && limits.native === null && limits.totalRss === null;
}

/**
 * The default for limits.totalRss, where the config sets no memory limit and the container has one;
 * null otherwise (an explicit limit wins). `bytes` is null when the budget has no room for the
 * workers (less than a fresh worker each): a default there would recycle a healthy app in a loop.
 * @param {import('../../types.js').Limits} limits
 * @param {{cgroupLimit:number|null, primaryRss:number|null, workers:number}} o
 * @returns {{bytes:number|null, cgroupLimit:number, primaryRss:number, margin:number, snapshotBudget:number, workers:number}|null}
 */
export function defaultTotalLimit(limits, { cgroupLimit, primaryRss, workers }) {
  if (!noMemoryLimit(limits)) return null;
  const budget = workersBudget({ cgroupLimit, primaryRss });
  if (!budget) return null;
  const room = budget.bytes >= workers * BUDGET.replacement;
  return { ...budget, bytes: room ? budget.bytes : null, workers };
}
