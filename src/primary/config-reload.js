// SIGHUP: re-read the config the way it was first read (file, flags). A broken file changes nothing
// (config.invalid). Limits and timings apply at the next tick; the app's settings (script, args,
// env, nodeArgs) roll the workers; a new worker count adds or drains slots. With nothing changed
// the workers roll, as SIGHUP always did: it is how a deploy of new app code is picked up
// (gunicorn's HUP does the same). Keys bound at start keep their running values, and it says so.
import { EVENTS, RESTART_KEYS } from '../constants.js';
import { diffConfig } from '../core/config-diff.js';

/**
 * What a reload of `current` comes to: the config to apply and how, or the error that kept it.
 * @param {import('../types.js').Config} current
 * @param {() => Promise<import('../types.js').Config>} load
 * @returns {Promise<{error:string, event:object}|{next:object, diff:object, rolling:boolean, event:object}>}
 *   event: the config.reload or config.invalid event to report
 */
export async function reloadConfig(current, load) {
  const file = current.configFile;
  let read;
  try {
    read = await load();
  } catch (err) {
    return { error: err.message, event: { event: EVENTS.CONFIG_INVALID, file, error: err.message } };
  }
  const diff = diffConfig(current, read);
  const rolling = diff.rolling.length > 0 || diff.changed.length === 0;
  const next = { ...read };
  for (const k of RESTART_KEYS) next[k] = current[k];
  return {
    next, diff, rolling,
    event: {
      event: EVENTS.CONFIG_RELOAD, file, changed: diff.changed, applied: rolling ? 'rolling' : 'live',
      ...(diff.workers ? { workers: diff.workers } : {}), ...(diff.needsRestart.length ? { needsRestart: diff.needsRestart } : {}),
    },
  };
}
