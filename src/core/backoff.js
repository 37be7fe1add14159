// Crash restarts: exponential delay per slot, and the give-up rule over the whole pool.

/** Delay before restarting a slot that crashed `consecutive` times in a row (1 = first crash). */
export function restartDelay(consecutive, { initialDelay, maxDelay }) {
  const exp = Math.max(0, consecutive - 1);
  return Math.min(maxDelay, initialDelay * 2 ** Math.min(exp, 30));
}

/** Crash times still inside the window, newest last; the caller keeps the returned array. */
export function crashesInWindow(times, now, crashWindow) {
  let i = 0;
  while (i < times.length && times[i] <= now - crashWindow) i++;
  return i ? times.slice(i) : times;
}

/** True when the pool should give up: maxCrashes crashes inside crashWindow. */
export function shouldGiveUp(recentCount, { maxCrashes }) {
  return recentCount >= maxCrashes;
}
