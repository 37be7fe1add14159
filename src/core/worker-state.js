// The worker lifecycle as a transition table. The shell asks before it moves, so an impossible
// move (a drained worker becoming ready again) is a bug caught at once, not a silent state.
import { STATES } from '../constants.js';

const { SPAWNING, READY, DRAINING, KILLING, EXITED } = STATES;

const NEXT = {
  // A starting worker can be drained too: a stop during startup, a replacement that was not ready.
  [SPAWNING]: [READY, DRAINING, KILLING, EXITED],
  [READY]: [DRAINING, KILLING, EXITED],
  [DRAINING]: [KILLING, EXITED],
  [KILLING]: [EXITED],
  [EXITED]: [],
};

/** True when a worker in state `from` may move to `to`. */
export function canTransition(from, to) {
  return NEXT[from]?.includes(to) ?? false;
}

/** The next state, or a thrown error naming the impossible move. */
export function transition(from, to) {
  if (!canTransition(from, to)) throw new Error(`impossible worker transition ${from} -> ${to}`);
  return to;
}
