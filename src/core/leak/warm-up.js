// A rise that starts with the worker cannot be told from a warm-up until the warm-up would have
// ended: a lookup table built for its first 90 s, a cache filled to its cap over two minutes rise
// exactly as a leak from boot does. So no heap, external or children leak is named before a worker
// is `leak.warmUp` past ready (WARM_UP_MS by default). A leak that starts later is named as fast as before (its confirmation
// takes longer than the hold has left); a limit still recycles at once.
//
// The slot's history knows better: once a worker of the slot leaked, its replacements, running the
// same code, get no hold. A reload forgets that, since new code may warm up differently. Pure:
// each function writes only the slot record decide() gave it.
import { LEAK_KINDS, MEMORY_REASONS } from '../../constants.js';

// The default: the warm-ups to stay silent on last up to about two minutes; the boot leaks to name
// are named by three minutes after ready (a confirmation point falls every 20 s past the hold).
export const WARM_UP_MS = 150_000;

const LEARNED = new Set([LEAK_KINDS.HEAP, LEAK_KINDS.EXTERNAL, LEAK_KINDS.CHILDREN]);

/**
 * When the worker's warm-up hold ends (-Infinity when its slot knows better): no fast verdict
 * before it. `w`: {id, readyAt, startedAt}; `warmUpMs`: leak.warmUp. A verdict on points
 * after full GCs also needs a point taken after it: on a loaded machine the last point before the
 * hold's end may be half a minute old, taken while a cache still filled (named at 151 s, once).
 */
export function warmUpEnd(w, slotState, warmUpMs = WARM_UP_MS) {
  if (slotState.leaked && slotState.leaked.id < w.id) return -Infinity;
  return (w.readyAt ?? w.startedAt) + warmUpMs;
}

/** What the slot learns of a leak named in one of its workers: its replacements are not held. */
export function learnLeak(slotState, w, kind) {
  if (LEARNED.has(kind) && !(slotState.leaked && slotState.leaked.id <= w.id)) slotState.leaked = { id: w.id, kind };
}

/** A worker of the slot replaced for memory (outcomes.js): its growth was no warm-up either. */
export function learnRecycle(slotState, { id, reason }) {
  if (MEMORY_REASONS.has(reason) && !(slotState.leaked && slotState.leaked.id <= id)) slotState.leaked = { id, kind: reason };
}

/** A worker started by a reload runs code the slot's history does not know: forget it. */
export function forgetAtReload(slotState, w) {
  if (w.fromReload && slotState.leaked && slotState.leaked.id < w.id) slotState.leaked = null;
}
