// The public API: `import { startSupervisor, defineConfig } from 'nodesup'`.
import { validateConfig } from './config/validate.js';
import { runSupervisor } from './primary/start.js';
import { resolveConfig } from './config/load.js';

export { REASONS, EVENTS, STATES } from './constants.js';
export { NodesupError, ERROR_CODES } from './errors.js';
export { parseSize, parseDuration } from './units.js';
export { validateConfig };

/** Identity helper for editor completion in supervisor.config.js. */
export function defineConfig(config) {
  return config;
}

/**
 * Run a supervisor from a config object (the same keys as supervisor.config.js) until it stops.
 * Resolves with the exit code the CLI would use.
 */
export async function startSupervisor(options, { cwd = process.cwd() } = {}) {
  const config = await resolveConfig(options, { where: 'startSupervisor()', cwd, baseDir: cwd, configFile: null, script: options.script, appArgs: options.args ?? [] });
  return runSupervisor(config);
}
