// Which of the wanted recycles may start now. At most maxConcurrent slots recycle at once, and a
// slot already recycling is never started twice; the rest wait for a later tick.

/**
 * @param {{slot:number, reason:string}[]} wanted  verdicts, most urgent first
 * @param {Set<number>} busy                        slots with a recycle in progress
 * @param {number} maxConcurrent
 * @returns {{start:object[], deferred:object[]}}
 */
export function planRecycles(wanted, busy, maxConcurrent) {
  const start = [];
  const deferred = [];
  const seen = new Set();
  let free = maxConcurrent - busy.size;
  for (const v of wanted) {
    if (busy.has(v.slot) || seen.has(v.slot)) continue;
    seen.add(v.slot);
    if (free > 0) {
      start.push(v);
      free--;
    } else deferred.push(v);
  }
  return { start, deferred };
}
