// `nodesup start <script> [-- app args]`: the primary in the foreground. Everything that can be
// refused (config, script, the control socket, the metrics port) is checked before a worker forks.

import { appOptions } from './app-options.js';

export const command = 'start [script]';
export const describe = 'start the primary in the foreground; logs on stdout';

/** yargs options: each is also a config key, and the flag wins. */
export function builder(y) {
  return appOptions(y)
    .option('kill-timeout', { type: 'string', describe: 'drain time before SIGTERM/SIGKILL, e.g. 10s' })
    .option('tui', { type: 'boolean', describe: 'show the live status view instead of logs' })
    .option('metrics', { type: 'string', describe: 'Prometheus endpoint host:port, or false' })
    .option('log-level', { type: 'string', describe: 'fatal, error, warn, info, debug, trace or silent' })
    .option('log-format', { type: 'string', describe: 'json or pretty' })
    .option('name', { type: 'string', describe: 'supervisor name: control socket and metrics label' });
}

/** Run until stopped; the exit code says how it ended. SIGHUP re-reads the same file and flags. */
export async function handler(argv) {
  // Loaded here, not at the top: `nodesup status` and the other commands need neither zod nor the primary.
  const { loadConfig, flagsToConfig } = await import('../../config/load.js');
  const { runSupervisor } = await import('../../primary/start.js');
  const cwd = process.cwd();
  const load = () => loadConfig({ cwd, configPath: argv.config, flags: flagsToConfig(argv), script: argv.script, appArgs: argv['--'] ?? [] });
  process.exitCode = await runSupervisor(await load(), { loadConfig: load });
}
