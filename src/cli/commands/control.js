// The commands that talk to a running supervisor over its control socket.
import { request } from '../../control/client.js';
import { runDir } from '../../control/run-dir.js';
import { parseSlot } from '../../slot.js';

const nameArg = (y) => y.positional('name', { type: 'string', describe: 'supervisor name (optional when only one runs)' });
const slotArg = (y) => y.positional('slot', { type: 'string', describe: 'worker slot, 0..N-1' });

// A reload replaces every slot in turn (startup + drain each): with many workers, many minutes.
const TIMEOUTS = { reload: 60 * 60_000, stop: 10 * 60_000 };
const ask = (argv, op, args = {}) => request({ name: argv.name, dir: runDir(), op, args, timeoutMs: TIMEOUTS[op] ?? 120_000 });
const print = (obj) => process.stdout.write(`${JSON.stringify(obj, null, 2)}\n`);

export const controlCommands = [
  {
    command: 'status [name]',
    describe: 'live view of a running supervisor (--json: one snapshot, then exit)',
    builder: (y) => nameArg(y).option('json', { type: 'boolean', describe: 'print one snapshot as JSON and exit' }),
    handler: async (argv) => {
      if (argv.json || !process.stdout.isTTY) {
        print(await ask(argv, 'status'));
        return;
      }
      const { liveStatus } = await import('../live-status.js');
      process.exitCode = await liveStatus({ name: argv.name, dir: runDir() });
    },
  },
  {
    command: 'reload [name]',
    describe: 'rolling restart of every worker, one slot at a time',
    builder: nameArg,
    handler: async (argv) => print(await ask(argv, 'reload')),
  },
  {
    command: 'recycle <slot> [name]',
    describe: 'recycle one worker now (reason manual)',
    builder: (y) => nameArg(slotArg(y)),
    handler: async (argv) => {
      const reply = await ask(argv, 'recycle', { slot: parseSlot(argv.slot) });
      print(reply);
      // The old worker kept serving, but what was asked for did not happen.
      if (reply.result === 'failed') process.exitCode = 1;
    },
  },
  {
    command: 'inspect <slot> [name]',
    describe: "one worker's memory breakdown and advice",
    builder: (y) => nameArg(slotArg(y))
      .option('json', { type: 'boolean', describe: 'machine-readable report' })
      .option('heap-snapshot', { type: 'string', describe: 'also write a heap snapshot of that worker to this file' })
      .option('profile', { type: 'string', describe: "also write that worker's sampled allocation sites to this file: pprof (.pb.gz), or V8's .heapprofile" }),
    handler: async (argv) => {
      const { resolve } = await import('node:path');
      const heapSnapshot = argv.heapSnapshot ? resolve(argv.heapSnapshot) : undefined;
      const profile = argv.profile ? resolve(argv.profile) : undefined;
      const report = await ask(argv, 'inspect', { slot: parseSlot(argv.slot), heapSnapshot, profile });
      if (argv.json) {
        // Each advice with its sentence: `inspect --json` is read by people and scripts that want it.
        const { adviceText } = await import('../../report/advice-words.js');
        print({ ...report, advice: (report.advice ?? []).map((a) => ({ ...a, message: a.message ?? adviceText(a) })) });
      } else {
        const { inspectText } = await import('../../report/inspect-view.js');
        process.stdout.write(inspectText(report));
      }
    },
  },
  {
    command: 'history [slot] [name]',
    describe: "each slot's memory across its workers: 30 min per poll, 6 h per 30 s, and its recycles",
    builder: (y) => y.positional('slot', { type: 'string', describe: 'one worker slot (default: all)' })
      .positional('name', { type: 'string', describe: 'supervisor name (optional when only one runs)' })
      .option('json', { type: 'boolean', describe: 'the documented history document (README), one line' }),
    handler: async (argv) => {
      // `nodesup history api`: a name where the slot would be.
      const named = argv.slot !== undefined && argv.name === undefined && !/^\d+$/.test(argv.slot);
      const name = named ? argv.slot : argv.name;
      const args = argv.slot === undefined || named ? {} : { slot: parseSlot(argv.slot) };
      const doc = await ask({ ...argv, name }, 'history', args);
      if (argv.json) process.stdout.write(`${JSON.stringify(doc)}\n`);
      else process.stdout.write((await import('../history-text.js')).formatHistory(doc, { width: Math.min(160, process.stdout.columns || 100) }));
    },
  },
  {
    command: 'stop [name]',
    describe: 'graceful shutdown, same as SIGTERM to the primary',
    builder: nameArg,
    handler: async (argv) => print(await ask(argv, 'stop')),
  },
];
