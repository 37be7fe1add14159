// What nodesup learns of a fast leak across a slot's workers, for the decision: when to start a
// worker's sampling profiler before its first recycle, whether a replacement profiles from birth,
// and when workers in a row that filled alike are said as the slot's leak. Pure; each function
// writes only the policy records (worker's, slot's) it is given, copies decide() made.
import { EVENTS, MEMORY_REASONS, REASONS } from '../../constants.js';
import { fillsFast, sameRateStreak } from './retained.js';

// A worker filling toward its rss limit within a minute is named before its first recycle comes:
// the sampling heap profiler starts now, and the recycle reads what it retained (recycler.js).
export function profileProbe(w, mine, now, config) {
  if (mine.profiling || !fillsFast(w.window, config.limits?.rss ?? null, now)) return null;
  mine.profiling = true;
  return { slot: w.slot, pid: w.pid, id: w.id, start: true };
}

// The replacement of a worker recycled for memory profiles from its birth, so even a leak that
// fills it in seconds is named at its recycle; once three workers in a row named the same site
// the slot's leak is known, and the replacements stop paying for the profiler.
export function profileNext(v, slotState) {
  if (!MEMORY_REASONS.has(v.reason) && v.reason !== REASONS.LEAK) return false;
  const known = slotState.named;
  return !(known && known.workers >= 3 && known.sites?.length);
}

// Successive workers of a slot that fill at the same rate are evidence of their own: said as a
// leak.warning of the slot when the streak reaches 2, 4, 8… workers, and kept for status and inspect.
export function slotNotice(w, slotState, notices) {
  const streak = sameRateStreak(slotState.recycles ?? []);
  if (!streak) {
    slotState.named = null;
    return;
  }
  const said = slotState.named?.workers ?? 0;
  slotState.named = streak;
  if (streak.workers <= said || (streak.workers & (streak.workers - 1)) !== 0) return;
  notices.push({
    level: 'warn',
    fields: {
      event: EVENTS.LEAK_WARNING, slot: w.slot, pid: w.pid, kind: streak.kind, growthBytesPerSec: Math.round(streak.bytesPerMin / 60),
      workersInRow: streak.workers, ...(streak.sites ? { sites: streak.sites } : {}),
    },
  });
}

/**
 * The leak the policy knows of a worker: its own latest verdict, else its slot's leak across
 * workers (said in the same shape), else null. A view for status and inspect; writes nothing.
 */
export function knownLeak(policy, h) {
  const own = policy.workers[h.id]?.leak;
  if (own) return own;
  const named = policy.slots[h.slot]?.named;
  return named ? { kind: named.kind, growthBytesPerSec: Math.round(named.bytesPerMin / 60), workersInRow: named.workers, sites: named.sites } : null;
}
