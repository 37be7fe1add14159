// Which of the wanted recycles may start now. At most maxConcurrent slots recycle at once, and a
// slot already recycling is never started twice; the rest wait for a later tick, which decides
// again from fresher samples.

/**
 * The verdicts to act on now, most urgent first.
 * @param {{slot:number, reason:string}[]} wanted  verdicts, most urgent first
 * @param {Set<number>} busy                        slots with a recycle in progress
 * @param {number} maxConcurrent
 * @param {Set<number>} [waiting]  busy slots whose replacement is ready and waits for the old
 *   worker's predicted crossing: no start-up left to bound, so they leave the room to others
 * @returns {object[]}
 */
export function planRecycles(wanted, busy, maxConcurrent, waiting = new Set()) {
  const start = [];
  const seen = new Set();
  let free = maxConcurrent - (busy.size - waiting.size);
  for (const v of wanted) {
    if (free <= 0) break;
    if (busy.has(v.slot) || seen.has(v.slot)) continue;
    seen.add(v.slot);
    start.push(v);
    free--;
  }
  return start;
}
