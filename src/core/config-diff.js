// What a re-read config changes, and how it can be applied: limits and timings live at the next
// tick; the app's own settings only by rolling the workers; some keys only by a restart of nodesup.

/** Keys applied at the next tick, with no worker restarted. */
export const LIVE_KEYS = Object.freeze(['limits', 'pollInterval', 'leak', 'gcBeforeRecycle', 'recycle', 'restart', 'unresponsive']);
/** Keys the workers are forked with: a change rolls them, one slot at a time. */
export const ROLLING_KEYS = Object.freeze(['script', 'args', 'env', 'nodeArgs']);
/** Keys bound at start (the control socket's name, the metrics port, the log, the screen). */
export const RESTART_KEYS = Object.freeze(['name', 'metrics', 'log', 'tui', 'balance', 'stickyHeader']);

/**
 * @param {import('../types.js').Config} current
 * @param {import('../types.js').Config} next
 * @returns {{changed:string[], live:string[], rolling:string[], needsRestart:string[], workers:{from:number,to:number}|null}}
 */
export function diffConfig(current, next) {
  const differs = (k) => !same(current[k], next[k]);
  const live = LIVE_KEYS.filter(differs);
  const rolling = ROLLING_KEYS.filter(differs);
  const needsRestart = RESTART_KEYS.filter(differs);
  const workers = current.workers === next.workers ? null : { from: current.workers, to: next.workers };
  return { changed: [...live, ...rolling, ...(workers ? ['workers'] : []), ...needsRestart], live, rolling, needsRestart, workers };
}

// Configs are plain data (validated): numbers, strings, booleans, null, arrays and objects.
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}
