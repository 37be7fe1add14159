// `nodesup start <script> [-- app args]`: the primary in the foreground. Everything that can be
// refused (config, script, the control socket, the metrics port) is checked before a worker forks.
// Once the config is valid this process replaces itself, same pid, with the lean primary
// (cli/lean-launch.js); where it cannot, the primary runs here.

import { appOptions } from './app-options.js';
import { execLean, loadInputs } from '../lean-launch.js';

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
  const inputs = loadInputs(argv, flagsToConfig);
  const config = await loadConfig(inputs);
  const why = execLean(config, inputs);
  const { runSupervisor } = await import('../../primary/start.js');
  process.exitCode = await runSupervisor(config, {
    loadConfig: () => loadConfig(inputs),
    note: { level: 'info', fields: { primary: 'full' }, msg: `primary: the CLI and config validation stay loaded (~10 MiB): ${why}` },
  });
}
