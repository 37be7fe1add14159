// Command-line options every bench shares (--quick, --write, --results) plus its own.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RESULTS_FILE = path.join(ROOT, 'bench/RESULTS.md');

/**
 * Parse process.argv. `own` are extra parseArgs options (all strings or booleans).
 * Returns { quick, write, results, ...own values, command } where command is how to rerun it.
 */
export function benchArgs(own = {}, usage = '') {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        write: { type: 'boolean', default: false },
        results: { type: 'string', default: RESULTS_FILE },
        help: { type: 'boolean', default: false },
        ...own,
      },
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`${err.message}\n${usage}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n  --quick     ~1-minute smoke run (not a result)\n  --write     replace this bench's section in bench/RESULTS.md\n  --results F write to F instead of bench/RESULTS.md\n`);
    process.exit(0);
  }
  const script = path.relative(ROOT, process.argv[1]);
  // The rerun command leaves out --results (a scratch file is not part of how to reproduce).
  const argv = process.argv.slice(2).filter((a, i, all) => a !== '--results' && all[i - 1] !== '--results' && !a.startsWith('--results='))
    // The old checkout's directory is this machine's; the section names its commit instead.
    .map((a, i, all) => (all[i - 1] === '--old' ? 'DIR' : a.startsWith('--old=') ? '--old=DIR' : a));
  return { ...values, command: ['node', script, ...argv].join(' ') };
}
