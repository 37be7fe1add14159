// The primary after `nodesup start` replaced itself (lean-launch.js): the config comes validated
// in the environment, and only the supervisor loads; no yargs, no zod. A SIGHUP re-reads the
// config in a short-lived child.
import { runSupervisor } from '../primary/start.js';
import { HANDOVER, loadInChild } from './lean-launch.js';
import { reportError } from './report-error.js';

const { config, inputs, flags, env = [] } = JSON.parse(process.env[HANDOVER]);
// Not for the workers, nor for anything they start: the handover, and the environment set for
// this process alone (lean-launch.js), read already.
delete process.env[HANDOVER];
for (const name of env) delete process.env[name];

try {
  process.exitCode = await runSupervisor(config, {
    loadConfig: () => loadInChild(inputs, { leanFlags: flags }),
    note: { level: 'debug', fields: { primary: 'lean' }, msg: 'primary: lean (process.execve): the CLI and config validation are not loaded; a SIGHUP reads the config in a child process' },
  });
} catch (err) {
  reportError(err);
}
