// Which of the wanted recycles may start now. At most maxConcurrent slots recycle at once, and a
// slot already recycling is never started twice; the rest wait for a later tick, which decides
// again from fresher samples. A worker over (or about to cross) a memory limit is never held behind
// that room: it may start beside the others while the machine's memory headroom has room for one
// more worker, because each second it waits it grows, and past the container's limit the kernel
// kills it with every request it holds.
import { MEMORY_REASONS } from '../../constants.js';
import { memoryOf } from '../forecast/memory-of.js';

/**
 * The verdicts to act on now, most urgent first.
 * @param {{slot:number, reason:string, predictive?:boolean}[]} wanted  verdicts
 * @param {Set<number>} busy                        slots with a recycle in progress
 * @param {number} maxConcurrent
 * @param {Set<number>} [waiting]  busy slots whose replacement is ready and waits for the old
 *   worker's predicted crossing: no start-up left to bound, so they leave the room to others
 * @param {number} [memoryRoom]  start-ups the memory headroom allows beyond maxConcurrent, for memory verdicts only
 * @returns {object[]}
 */
export function planRecycles(wanted, busy, maxConcurrent, waiting = new Set(), memoryRoom = 0) {
  const start = [];
  const seen = new Set();
  let free = maxConcurrent - (busy.size - waiting.size);
  let extra = memoryRoom;
  for (const v of [...wanted].sort((a, b) => urgency(a) - urgency(b))) {
    if (busy.has(v.slot) || seen.has(v.slot)) continue;
    if (free > 0) free--;
    else if (extra > 0 && MEMORY_REASONS.has(v.reason)) extra--;
    else continue;
    seen.add(v.slot);
    start.push(v);
  }
  return start;
}

// Over a memory limit first, then about to cross one, then the rest (a stable sort keeps slot order).
function urgency(v) {
  if (!MEMORY_REASONS.has(v.reason)) return 2;
  return v.predictive ? 1 : 0;
}

/**
 * How many replacements the memory headroom has room for beyond maxConcurrent: half of what is
 * free (the cgroup's limit less its usage, else the machine's MemAvailable), in units of the
 * smallest a serving worker has been (what a fresh worker costs). 0 when either is unknown.
 * @param {number|null} headroom  bytes
 * @param {{window: import('../forecast/sample-window.js').SampleWindow}[]} workers
 */
export function memoryRoom(headroom, workers) {
  if (headroom === null || !(headroom > 0)) return 0;
  let fresh = null;
  for (const w of workers) {
    for (const s of w.window.samples) {
      const m = memoryOf(s);
      if (m !== null && (fresh === null || m < fresh)) fresh = m;
    }
  }
  if (fresh === null || fresh <= 0) return 0;
  return Math.min(workers.length, Math.floor((headroom / 2) / fresh));
}
