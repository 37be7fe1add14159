// The commands that talk to a running supervisor over its control socket. `reload`, `recycle` and
// `stop` print words (src/report/control-words.js), a line per slot as it happens; `--json` prints
// the supervisor's document instead. Their exit status is 0 only when what was asked happened.
import { call, request } from '../../control/client.js';
import { runDir } from '../../control/run-dir.js';
import { parseSlot } from '../../slot.js';

const nameArg = (y) => y.positional('name', { type: 'string', describe: 'supervisor name (optional when only one runs)' });
const slotArg = (y) => y.positional('slot', { type: 'string', describe: 'worker slot, 0..N-1' });

// A reload replaces every slot in turn (startup + drain each): with many workers, many minutes.
const TIMEOUTS = { reload: 60 * 60_000, stop: 10 * 60_000 };
const ask = (argv, op, args = {}) => request({ name: argv.name, dir: runDir(), op, args, timeoutMs: TIMEOUTS[op] ?? 120_000 });
const print = (obj) => process.stdout.write(`${JSON.stringify(obj, null, 2)}\n`);
const say = (lines) => process.stdout.write(lines.map((l) => `${l}\n`).join(''));
const jsonOption = (what) => (y) => nameArg(y).option('json', { type: 'boolean', describe: `print ${what} as JSON instead of words` });
const words = () => import('../../report/control-words.js');
// How often an older supervisor, which answers `stop` before it drains, is asked whether it is gone.
const GONE_POLL_MS = 200;

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
    describe: 'rolling restart of every worker, one slot at a time; stops at the first slot whose new code fails (exit 1)',
    builder: jsonOption('the reload\'s document'),
    handler: async (argv) => {
      const w = await words();
      let heard = false;
      const onProgress = argv.json ? null : (p) => {
        if (p.type === 'start') {
          heard = true;
          say([w.reloadStartLine(p)]);
        } else if (p.type === 'slot') say(w.slotLines(p));
      };
      const { result, version } = await call({ name: argv.name, dir: runDir(), op: 'reload', timeoutMs: TIMEOUTS.reload, onProgress });
      if (argv.json) print(result);
      else say(heard ? w.reloadSummary(w.reloadDocument(result)) : w.reloadText(result, { olderSupervisor: version < 2 }));
      // Any slot that kept its old code: the deploy did not happen.
      process.exitCode = w.reloadDocument(result).result === 'ok' ? 0 : 1;
    },
  },
  {
    command: 'recycle <slot> [name]',
    describe: 'recycle one worker now (reason manual); exit 1 when it was not replaced',
    builder: (y) => jsonOption('the result')(slotArg(y)),
    handler: async (argv) => {
      const { result, version } = await call({ name: argv.name, dir: runDir(), op: 'recycle', args: { slot: parseSlot(argv.slot) }, timeoutMs: 120_000 });
      if (argv.json) print(result);
      else say((await words()).recycleText(result, { olderSupervisor: version < 2 }));
      // The old worker kept serving, but what was asked for did not happen.
      process.exitCode = result?.result === 'recycled' ? 0 : 1;
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
    describe: 'graceful shutdown, same as SIGTERM to the primary; returns once every worker is gone',
    builder: jsonOption('what the stop did'),
    handler: async (argv) => {
      const w = await words();
      const onProgress = argv.json ? null : (p) => {
        if (p.type === 'start') say([w.stopStartLine(p)]);
        else if (p.type === 'exit') say([w.stopWorkerLine(p)]);
      };
      const { result, version, name } = await call({ name: argv.name, dir: runDir(), op: 'stop', timeoutMs: TIMEOUTS.stop, onProgress });
      if (version >= 2 && result?.stopped) {
        if (argv.json) print(result);
        else say([w.stopSummary(result)]);
        return;
      }
      // An older supervisor answered before its drain: the stop has happened once it is gone.
      if (!argv.json) say(['stopping (the supervisor runs an older nodesup, which answers before it drains)']);
      await untilGone(name, TIMEOUTS.stop);
      if (argv.json) print({ ...result, stopped: true });
      else say(['stopped']);
    },
  },
];

// Resolves once supervisor `name` no longer answers; rejects at the deadline.
async function untilGone(name, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await request({ name, dir: runDir(), op: 'ping', timeoutMs: 5000 });
    } catch (err) {
      if (err.code === 'NODESUP_ERR_NOT_RUNNING') return;
      throw err;
    }
    if (Date.now() > deadline) {
      const { NodesupError } = await import('../../errors.js');
      throw new NodesupError('NODESUP_ERR_CONTROL', `supervisor "${name}" still runs ${timeoutMs / 1000} s after it was asked to stop; see its log`);
    }
    await new Promise((resolve) => setTimeout(resolve, GONE_POLL_MS));
  }
}
