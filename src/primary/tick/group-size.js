// How many workers one poll tick asks at once. Past that many, the tick polls one group of slots
// and the groups take turns over the poll interval, so every worker is still sampled once an
// interval. Replies to asks sent together come back together and are read a few to a wake-up of
// the primary; smaller groups spread them out and wake it more: at 128 idle workers, polling all of
// them in one group used 1/1.32 the primary's CPU of eight groups of 16 (bench/RESULTS.md,
// "primary-cost-together-one-group"). But waking an idle process costs a host's CPU 0.3–3 ms,
// and 128 woken at once queue for the cores: on a slow 2-core host a tick asking all 128 waited
// 1.5 s at its p99. So the size follows the host: it doubles while whole rounds of groups answer
// well inside the target, and halves as soon as one round's slowest tick is over it.

/** The group size a loop starts at and never goes below (docs/design.md, why the poll is spread out). */
export const GROUP_MIN = 16;
/** The longest a tick should wait for its group's replies, ms: the tick p99 nodesup has held itself to (bench/primary-cost.js). */
export const GROUP_TARGET_MS = 100;
// Rounds in a row answered within half the target before the size doubles: one quiet round says
// little about the next, and a size that flaps costs a slow round each time.
const CALM_ROUNDS = 10;

/** @typedef {{size:number, calm:number}} GroupSize  calm: rounds in a row answered within half the target */

/** @returns {GroupSize} */
export const newGroupSize = () => ({ size: GROUP_MIN, calm: 0 });

/** How many groups `slots` slots are polled in at `size` a group, one group a tick. */
export function pollGroups(slots, size = GROUP_MIN) {
  return Math.max(1, Math.ceil(slots / size));
}

/**
 * The size after a round of groups (every slot polled once) whose slowest tick waited `slowestMs`
 * (null: no tick of the round polled anyone). It grows only while groups are still needed.
 * @param {GroupSize} g @param {number|null} slowestMs @param {number} slots
 * @returns {GroupSize}
 */
export function nextGroupSize(g, slowestMs, slots) {
  if (slowestMs === null) return g;
  if (slowestMs > GROUP_TARGET_MS) return { size: Math.max(GROUP_MIN, g.size / 2), calm: 0 };
  const calm = slowestMs <= GROUP_TARGET_MS / 2 ? g.calm + 1 : 0;
  if (calm >= CALM_ROUNDS && g.size < slots) return { size: g.size * 2, calm: 0 };
  return { size: g.size, calm };
}
