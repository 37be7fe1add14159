// One line for a known error, a stack for a bug: how the CLI and the lean primary (lean-primary.js)
// end on an error, with the exit code that says which (2 usage/config, 1 runtime).
import { EXIT } from '../errors.js';

/** Write the error to stderr and set the exit code. */
export function reportError(err) {
  if (err?.code?.startsWith?.('NODESUP_ERR_')) {
    process.stderr.write(`nodesup: ${err.message}\n`);
    process.exitCode = err.exitCode ?? EXIT.RUNTIME;
  } else {
    process.stderr.write(`nodesup: internal error: ${err?.stack ?? err}\n`);
    process.exitCode = EXIT.RUNTIME;
  }
}
