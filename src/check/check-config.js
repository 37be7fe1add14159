// The app's config as a check runs it: the same workers, limits and leak settings as `start`,
// less what belongs to a long-lived service. No metrics port (a CI runner may run two checks, or
// a supervisor, at once), no status screen, and a name of its own, so a check on a machine where
// `nodesup start` runs the same app does not meet its control socket.
import { NAME_RE } from '../config/validate.js';

const SUFFIX = '-check';

/**
 * @param {import('../types.js').Config} config
 * @param {{log: boolean, named: boolean}} o  log: the supervisor's log is kept (--log); named: --name was given
 * @returns {import('../types.js').Config}
 */
export function checkConfig(config, { log, named }) {
  const name = named ? config.name : `${config.name.slice(0, 64 - SUFFIX.length)}${SUFFIX}`;
  return {
    ...config,
    name: NAME_RE.test(name) ? name : config.name,
    metrics: false,
    tui: false,
    // Without --log the report says what matters; the lines would only crowd the CI log.
    log: { ...config.log, level: log ? config.log.level : 'silent', format: log ? 'json' : config.log.format },
  };
}
