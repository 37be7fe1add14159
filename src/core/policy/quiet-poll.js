// Past QUIET_FLEET slots, a quiet worker is asked for a sample every QUIET_EVERY polls, not every
// poll. At 128 idle workers the primary's work is almost all per worker per poll (the ask, the
// reply, its sample kept and judged) and a cheaper poll had already been bought piece by piece:
// asking less is what is left. Quiet is what nothing can be learnt from sooner: no request served,
// the loop idle, the same handles and children, memory still, the agent answering, and nothing
// the policy is watching (over a limit, a leak suspicion, a profiler). Any of those changing puts
// the worker back on every poll at its next ask. The heap floor the leak checks read is kept by the
// agent between asks, so a slow leak is seen as soon, in minutes, from fewer samples.

// Up to this many workers every one is asked every poll: the poll costs well under 1 % of a core
// there, and every sample is kept.
export const QUIET_FLEET = 16;
/** A quiet worker is asked at least every QUIET_EVERY polls. */
export const QUIET_EVERY = 4;
// Memory that moved less than this between two samples is still: an idle worker's RSS wanders by
// tens of KiB a poll (the agent's own replies).
const STILL_BYTES = 1024 * 1024;
// The event loop busier than this is doing something (a timer's work, a stream) even with no request.
const IDLE_ELU = 0.05;

/**
 * Whether `w` was quiet between its last two samples, as the policy saw it.
 * @param {import('../forecast/sample-window.js').SampleWindow} window
 * @param {object|undefined} policy  the policy's record of the worker (decide.js WorkerPolicy)
 */
export function isQuiet(window, policy) {
  const s = window.samples;
  if (s.length < 2) return false;
  const a = s[s.length - 2];
  const b = s[s.length - 1];
  if (policy && (policy.firstOverAt !== null || policy.confirm?.since != null || policy.profiling)) return false;
  return b.elu !== null && b.elu !== undefined && b.elu < IDLE_ELU
    && b.requests !== null && b.requests === a.requests
    && b.handles === a.handles && b.children === a.children
    && still(a.rss, b.rss) && still(a.heapUsed, b.heapUsed) && still(a.external, b.external);
}

const still = (x, y) => x !== null && x !== undefined && y !== null && y !== undefined && Math.abs(y - x) < STILL_BYTES;

const ASK = Object.freeze({ ask: true, skipped: 0 });

/**
 * Whether a worker is asked on this poll, and its count of polls skipped after it; null when that
 * turns on whether it is quiet and `quiet` was not given. Most polls of most fleets are decided by
 * the count and the fleet's size, so the caller reads quietness only when asked for it (null), and
 * nothing is built per worker per tick for the rest.
 * @param {{quiet?:boolean, skipped:number, slots:number}} o  skipped: polls skipped in a row so far
 * @returns {{ask:boolean, skipped:number}|null}
 */
export function pollDue({ quiet, skipped, slots }) {
  if (slots <= QUIET_FLEET || skipped >= QUIET_EVERY - 1) return ASK;
  if (quiet === undefined) return null;
  return quiet ? { ask: false, skipped: skipped + 1 } : ASK;
}
