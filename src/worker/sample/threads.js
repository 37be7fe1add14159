// The app's worker_threads, seen from the agent: each thread has a V8 heap of its own, which
// process.memoryUsage() does not count and which would otherwise be filed under native memory.
// Worker#getHeapStatistics() (Node ≥ 22.16) is asynchronous and a blocked thread never answers it,
// so every stats request refreshes the numbers in the background and reports the last ones known.

/** Start watching threads; returns a reader of their count and heap totals (null where unknown). */
export function watchThreads() {
  /** @type {Map<import('node:worker_threads').Worker, {used:number, physical:number}|null>} */
  const threads = new Map();
  process.on('worker', (w) => {
    threads.set(w, null);
    w.once('exit', () => threads.delete(w));
  });
  return function readThreads() {
    if (!threads.size) return { threads: 0, threadsHeapUsed: 0, threadsHeapPhysical: 0 };
    let used = 0;
    let physical = 0;
    let known = true;
    for (const [w, last] of threads) {
      if (typeof w.getHeapStatistics === 'function') {
        w.getHeapStatistics().then((h) => {
          if (threads.has(w)) threads.set(w, { used: h.used_heap_size, physical: h.total_physical_size });
        }, () => { /* the thread is exiting */ });
      }
      if (last === null) known = false;
      else { used += last.used; physical += last.physical; }
    }
    return { threads: threads.size, threadsHeapUsed: known ? used : null, threadsHeapPhysical: known ? physical : null };
  };
}
