// How long a thread waited for a CPU, from the kernel's scheduler statistics (schedstat: time on a
// CPU, time runnable but waiting, in ns). Waiting is the host's doing, not the code's: the worker
// reads its own to tell CPU starvation from blocking code, the primary reads a starting worker's
// so that readyTimeout counts the app's own time, not the time it queued for a core.
import { readText } from './read-text.js';

/** Nanoseconds the thread of `file` has waited runnable, or null where the kernel does not say. */
export function readWaitNs(file) {
  try {
    const ns = Number(readText(file).split(' ')[1]);
    return Number.isFinite(ns) ? ns : null;
  } catch {
    return null;
  }
}

/**
 * Milliseconds the main thread of process `pid` has waited for a CPU since it was forked (the
 * kernel starts a child's count at zero), or null.
 * @param {number} pid
 */
export function cpuWaitedMs(pid) {
  const ns = readWaitNs(`/proc/${pid}/schedstat`);
  return ns === null ? null : ns / 1e6;
}
