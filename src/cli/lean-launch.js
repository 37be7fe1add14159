// `nodesup start` in two stages under one pid: the CLI parses the flags and validates the config
// (yargs, zod: ~10 MiB the primary would keep for its whole life), then replaces itself with
// process.execve by lean-primary.js, which runs the supervisor with that config and nothing else.
// The pid the user started stays the primary: signals, the run directory, exit codes, the
// terminal and Kubernetes see one process. A SIGHUP's re-read is done by a short-lived child
// (config-child.js), so zod never loads into the lean primary.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NodesupError } from '../errors.js';

const LEAN_ENTRY = fileURLToPath(new URL('./lean-primary.js', import.meta.url));
const CHILD_ENTRY = fileURLToPath(new URL('./config-child.js', import.meta.url));
/** The environment variable that hands the validated config to lean-primary.js. */
export const HANDOVER = 'NODESUP_LEAN_START';
// An environment string is at most 128 KiB on Linux (MAX_ARG_STRLEN); a config larger than this
// (a huge `env`) starts the way it did before.
const MAX_HANDOVER = 100_000;
const RELOAD_TIMEOUT_MS = 60_000;
// Flags for the lean primary alone (its workers and the SIGHUP child never take them), each unless
// the user set it (node --max-semi-space-size=… nodesup start …). The primary's heap is ~10 MiB:
// - one platform thread instead of 4 (each with its malloc arena);
// - for a fleet of at most SMALL_FLEET workers, a young generation of 1 MiB, not the few MiB V8
//   grows it to for the poll's garbage (~2 MiB);
// - and where the kernel spreads the connections (`balance: 'reuse-port'`), also V8's lite mode
//   (no optimising compilers, no JIT; compiled code, its feedback and the compilers' memory are
//   ~8 MiB of RSS at rest on Node 24). Round-robin and sticky run cluster's JS in the primary for
//   every new connection: interpreted, it cost a connection-per-request load a fifth of its
//   throughput on 2 cores (bench/RESULTS.md, "lean-flags"), so they keep a JIT, but Maglev alone:
//   TurboFan's own code is pages of the node executable the primary otherwise never touches
//   (~4.5 MiB of RSS on Node 24), and without it that load ran within 2 % of its throughput
//   (bench/RESULTS.md, "lean-flags-turbofan"). Only where Node builds V8 with Maglev on (24 and
//   later): Node 22 ships it off, and its primary would be left with the baseline compiler alone.
// Each costs CPU in proportion to the tick's work, which grows with the workers: at 128 idle
// workers lite mode made the tick's JS about ten times dearer (bench/RESULTS.md), at 16 it is well
// under 1 % of a core. A fleet scaled past it by a SIGHUP keeps the flags it started with. Lite
// mode turns WebAssembly off, which the primary never uses; Node 22's V8 warns about that unless
// told --no-expose-wasm, a flag later V8s refuse.
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
export const SMALL_FLEET = 16;
const ALWAYS = [['--v8-pool-size', '1']];
const SMALL_FLEET_FLAGS = [['--max-semi-space-size', '1']];
const NO_JIT = [['--lite-mode'], ...(NODE_MAJOR <= 22 ? [['--expose-wasm', 'no']] : [])];
const NO_TURBOFAN = [['--turbofan', 'no']];
const MAGLEV = process.config.variables.v8_enable_maglev === 1;
// The environment of the lean primary alone, each unless the user set it. glibc gives each thread
// that allocates an arena of its own; with one arena for the primary's four threads (its main
// thread and three of Node's and V8's) its RSS at rest read ~2 MiB less on Node 24. glibc reads
// it once, at start: lean-primary.js removes it from process.env at once, so the workers and what
// they start keep the defaults.
const LEAN_ENV = { MALLOC_ARENA_MAX: '1' };

/** The lean primary's environment variables the user did not set already. @param {NodeJS.ProcessEnv} env */
export function leanEnv(env) {
  return Object.fromEntries(Object.entries(LEAN_ENV).filter(([name]) => env[name] === undefined));
}

/**
 * The lean flags the user did not set already, as arguments, for a fleet of `workers` balanced
 * by `balance`.
 * @param {string[]} execArgv @param {{workers:number, balance?:string}} fleet
 */
export function leanFlags(execArgv, { workers, balance = 'round-robin' }) {
  const names = execArgv.map((a) => a.split('=')[0].replace(/_/g, '-').replace(/^--no-/, '--'));
  const small = workers <= SMALL_FLEET;
  const maglev = MAGLEV && !execArgv.includes('--no-maglev');
  const jit = balance === 'reuse-port' ? NO_JIT : maglev ? NO_TURBOFAN : [];
  const wanted = [...(small ? [...jit, ...SMALL_FLEET_FLAGS] : []), ...ALWAYS];
  return wanted.filter(([flag]) => !names.includes(flag)).map(([flag, v]) => (v === 'no' ? `--no-${flag.slice(2)}` : v ? `${flag}=${v}` : flag));
}

/**
 * What loadConfig needs to read the config again the same way: JSON, for the handover and the child.
 * @param {object} argv yargs' argv of `start`
 * @param {(argv: object) => object} flagsToConfig
 */
export function loadInputs(argv, flagsToConfig) {
  return { cwd: process.cwd(), configPath: argv.config, flags: flagsToConfig(argv), script: argv.script, appArgs: (argv['--'] ?? []).map(String) };
}

/**
 * Replace this process with the lean primary. Returns only when it cannot, with why (the primary
 * then runs here, as before).
 * @returns {string}
 */
export function execLean(config, inputs) {
  if (typeof process.execve !== 'function') return `process.execve needs Node 22.15 or later (this is ${process.versions.node})`;
  const flags = leanFlags(process.execArgv, config);
  const added = leanEnv(process.env);
  const handover = JSON.stringify({ config, inputs, flags, env: Object.keys(added) });
  if (handover.length > MAX_HANDOVER) return `the config is over ${MAX_HANDOVER} bytes of JSON, too large to hand over in the environment`;
  const args = [process.execPath, ...process.execArgv, ...flags, LEAN_ENTRY, ...process.argv.slice(2)];
  // process.execve is experimental and says so: the user asked for nothing experimental.
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => (/execve/.test(String(warning?.message ?? warning)) ? undefined : emitWarning.call(process, warning, ...rest));
  try {
    process.execve(process.execPath, args, { ...process.env, ...added, [HANDOVER]: handover });
  } catch (err) {
    process.emitWarning = emitWarning;
    return `process.execve failed: ${err.message}`;
  }
  return 'process.execve returned';
}

/**
 * Read and validate the config in a child process, as loadConfig would here; resolves with the
 * config or rejects with the same NodesupError (config.invalid says its message). `leanFlags`: the
 * flags execLean added, which the child does not take.
 */
export function loadInChild(inputs, { leanFlags: added = [] } = {}) {
  return new Promise((resolve, reject) => {
    // The config is evaluated as at start: not with the lean primary's flags (no WebAssembly), nor
    // its inspector (the port is taken, and a debugger is for the primary).
    const execArgv = process.execArgv.filter((a) => !added.includes(a) && !a.startsWith('--inspect'));
    const child = fork(CHILD_ENTRY, [JSON.stringify(inputs)], { cwd: inputs.cwd, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let answered = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      settle({ error: { code: 'NODESUP_ERR_CONFIG_LOAD', message: `config: cannot load: reading it took more than ${RELOAD_TIMEOUT_MS / 1000} s` } });
    }, RELOAD_TIMEOUT_MS);
    function settle(answer) {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      if (answer.config) resolve(answer.config);
      else reject(answer.error?.code?.startsWith?.('NODESUP_ERR_') ? new NodesupError(answer.error.code, answer.error.message) : new Error(answer.error?.message ?? 'no answer'));
    }
    child.once('message', (answer) => {
      settle(answer);
      // A config that left a timer running keeps its process alive: the answer is all we need.
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
    child.once('error', (err) => settle({ error: { message: `config: cannot load: ${err.message}` } }));
    // 'close', not 'exit': it comes after the IPC channel is drained, so an answer is never missed.
    child.once('close', (code, signal) => settle({ error: { message: `config: cannot load: the process reading it exited (${code ?? signal}) without an answer` } }));
  });
}
