// Forks workers into stable slots and keeps its own registry of every live worker process:
// cluster drops a worker from cluster.workers at disconnect while its process lives on, and a
// drained worker must still be waited for and, if need be, killed.
// The pool forks, wires and talks to the workers; what the primary knows of each one (its record)
// and which worker serves each slot are kept, and written, by worker-records.js, which it extends.
import cluster from 'node:cluster';
import { existsSync, realpathSync } from 'node:fs';
import { SPAWN_CAUSES, STATES } from '../../constants.js';
import { KIND, message, isOurs } from '../../protocol.js';
import { SampleWindow } from '../../core/forecast/sample-window.js';
import { startTime } from '../../proc/memory.js';
import { cpuWaitedMs } from '../../proc/schedstat.js';
import { WorkerRecords } from './worker-records.js';
import { routeWorkerOutput } from '../app-output.js';
import { logicalCwd } from '../../config/logical-cwd.js';
import { workerExecArgv } from './agent-args.js';

const STDERR_TAIL_BYTES = 4096;
// A wait shorter than this does not move a start-up's deadline: not worth another timer.
const MIN_CREDIT_MS = 50;

/** @typedef {import('./worker-records.js').WorkerRecord} WorkerRecord */

export class Pool extends WorkerRecords {
  /**
   * @param {{config: import('../../types.js').Config, now?: () => number, output?: Parameters<typeof routeWorkerOutput>[0]|null}} o
   * `output`: where the workers' stdout and stderr go, line by line; null leaves them on the primary's own fds.
   */
  constructor({ config, now = Date.now, output = null }) {
    super({ now });
    this.config = config;
    this.output = output;
    this.seq = 0;
    /** Set by the parts that need it in every worker forked (NODESUP_BALANCE: primary/realtime/realtime.js). */
    this.workerEnv = {};
    /** Where the last worker that became ready was started from (real paths): the code that serves. */
    this.lastReady = null;
    /** While a reload has failed: what every start but a reload's starts, instead of the configured script. */
    this.pin = null;
    this.configure(config);
    this.resize(config.workers);
  }

  /** Settings for the workers forked from now on (a config reload); running workers keep theirs. */
  configure(config) {
    this.config = config;
    cluster.setupPrimary({
      exec: config.script,
      args: config.args,
      execArgv: workerExecArgv(config.nodeArgs, config.env?.NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? ''),
      stdio: ['ignore', this.output ? 'pipe' : 'inherit', 'pipe', 'ipc'],
      cwd: logicalCwd(),
    });
    this.windowMs = sampleHistoryMs(config);
  }

  /**
   * Fork a worker into `slot`; it is 'spawning' until it listens or calls ready(). A first start
   * or a restart serves the slot at once; a replacement only once promote()d. Emits 'spawn'.
   * `profile`: the agent runs the sampling heap profiler from its start.
   * `newCode`: a reload's replacement, which starts the configured script through its path as
   * given (a `current` symlink switched to a new release is followed); any other start, while a
   * reload has failed, starts the code that serves (pinServing).
   */
  spawn(slot, cause = SPAWN_CAUSES.INITIAL, { profile = false, newCode = false } = {}) {
    const from = this.#startFrom(newCode);
    cluster.setupPrimary({ exec: from.exec, cwd: from.cwd });
    const worker = cluster.fork({
      ...this.config.env, ...this.workerEnv, NODESUP_SLOT: String(slot), NODESUP_NAME: this.config.name,
      // The slot's last worker was recycled for memory: its replacement names what it retains from birth.
      ...(profile ? { NODESUP_PROFILE: '1' } : {}),
    });
    const now = this.now();
    /** @type {WorkerRecord} */
    const rec = {
      id: this.nextId(), slot, worker, pid: worker.process.pid, state: STATES.SPAWNING,
      startedAt: now, readyAt: null, lastReplyAt: now, helloAt: null, facts: null,
      window: new SampleWindow({ maxAgeMs: this.windowMs, maxSamples: Math.ceil(this.windowMs / this.config.pollInterval) + 8 }),
      jitterDraw: Math.random(), retiring: null, drainStartedAt: null, forced: false, notReady: false,
      tree: [], procStart: startTime(worker.process.pid), stderrTail: '', probe: { polls: 0, pssBase: null }, quietSkips: 0,
      pending: new Map(),
      // What it runs, by real paths (what a `current` symlink pointed at when it was forked), and
      // whether that is the pinned code rather than the configured script.
      script: from.script, cwd: from.realCwd, pinned: from.pinned, fromReload: newCode,
      // Set at its exit: {code, signal} and when; outputDone settles once its stdout and stderr
      // are closed, so its stderr tail is whole.
      exitStatus: null, exitedAt: null, outputDone: null,
    };
    this.#wire(rec);
    this.add(rec, { serve: cause !== SPAWN_CAUSES.REPLACE });
    this.emit('spawn', rec, cause);
    return rec;
  }

  /** @type {WeakMap<object, (ready: boolean) => void>} settles a starting worker's whenReady() */
  #started = new WeakMap();
  /** @type {WeakMap<object, Promise<boolean>>} */
  #startOutcome = new WeakMap();

  #wire(rec) {
    const { worker } = rec;
    this.#startOutcome.set(rec, new Promise((resolve) => this.#started.set(rec, resolve)));
    rec.outputDone = new Promise((resolve) => worker.process.once('close', resolve));
    rec.exited = new Promise((resolve) => {
      worker.on('exit', (code, signal) => {
        rec.exitStatus = { code, signal };
        rec.exitedAt = this.now();
        for (const resolve of rec.pending.values()) resolve(null);
        rec.pending.clear();
        const wasCurrent = this.remove(rec); // * -> EXITED
        this.#started.get(rec)?.(false);
        const info = { code, signal, wasCurrent };
        this.emit('exit', rec, info);
        resolve(info);
      });
    });
    worker.on('error', () => { /* IPC write after exit: the exit handler owns the outcome */ });
    const tail = (chunk) => { rec.stderrTail = (rec.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES); };
    if (this.output) routeWorkerOutput(this.output, rec.slot, worker.process.stdout, worker.process.stderr, tail);
    else worker.process.stderr?.on('data', (chunk) => { process.stderr.write(chunk); tail(chunk); });
    worker.on('listening', () => this.#ready(rec));
    worker.process.on('internalMessage', (msg) => {
      if (!isOurs(msg)) return;
      if (msg.kind === KIND.REPLY) {
        const resolve = rec.pending.get(msg.id);
        if (!resolve) return;
        rec.pending.delete(msg.id);
        this.noteReply(rec, this.now());
        resolve(msg.ok ? msg.result : null);
      } else if (msg.kind === KIND.HELLO) {
        const { cmd, v, kind, ...facts } = msg;
        this.noteHello(rec, facts, this.now());
      } else if (msg.kind === KIND.READY) this.#ready(rec);
    });
  }

  #ready(rec) {
    if (rec.state !== STATES.SPAWNING) return;
    const readyAt = this.now();
    this.markReady(rec, readyAt); // SPAWNING -> READY
    this.lastReady = { script: rec.script, cwd: rec.cwd };
    this.#started.get(rec)?.(true);
    this.emit('ready', rec);
  }

  /**
   * A reload failed: from now on every start but a reload's starts the code that serves (the
   * release the last ready worker ran, by its real path), not the configured script, which may
   * name the release that failed. Returns the pin, or null when no worker was ever ready.
   */
  pinServing() {
    this.pin = this.lastReady;
    return this.pin;
  }

  /** A reload succeeded: starts follow the configured script again. */
  unpin() {
    this.pin = null;
  }

  // The script and cwd a start uses. A pinned release that is gone (pruned since) is not started:
  // the configured script is better than a worker that cannot load.
  #startFrom(newCode) {
    if (!newCode && this.pin && existsSync(this.pin.script)) {
      return { exec: this.pin.script, cwd: this.pin.cwd, script: this.pin.script, realCwd: this.pin.cwd, pinned: true };
    }
    const cwd = logicalCwd();
    return { exec: this.config.script, cwd, script: realOr(this.config.script), realCwd: realOr(cwd), pinned: false };
  }

  /** Resolves true once rec is ready, false first if it exits or is not ready within timeoutMs of its own time (below). */
  whenReady(rec, timeoutMs) {
    if (rec.state === STATES.READY) return Promise.resolve(true);
    if (rec.state !== STATES.SPAWNING) return Promise.resolve(false);
    // One promise per worker, not a pool listener per waiter: 128 workers starting at once would
    // otherwise be 128 'ready' listeners (and a MaxListenersExceededWarning).
    let timer;
    const timeout = new Promise((resolve) => {
      // Time the worker spent queued for a CPU is the host's, not the app's: 128 workers forked at
      // once on 2 cores each wait most of their start-up, and a deadline that counted it killed
      // healthy workers into a crash loop. When the deadline falls due it moves on by the wait
      // since the last look, so readyTimeout bounds the app's own time, running or sleeping.
      let credited = 0;
      const due = () => {
        const waited = cpuWaitedMs(rec.pid) ?? credited;
        if (waited - credited < MIN_CREDIT_MS) return resolve(false);
        timer = setTimeout(due, waited - credited);
        credited = waited;
      };
      timer = setTimeout(due, timeoutMs);
    });
    return Promise.race([this.#startOutcome.get(rec), timeout]).finally(() => clearTimeout(timer));
  }

  /** Ask rec's agent something; resolves with the result, or null on timeout, error or exit. */
  request(rec, kind, fields, timeoutMs) {
    return this.requestEach([rec], kind, () => fields, timeoutMs).then((results) => results[0]);
  }

  /**
   * Ask each of recs' agents at once (`fieldsOf(i)`: what to send the i-th), under one timer:
   * resolves with each one's result in order, null for each that timed out, failed or exited. A
   * tick asks a group of workers together; a timer each was one set and cleared for every worker
   * every poll.
   * @returns {Promise<any[]>}
   */
  requestEach(recs, kind, fieldsOf, timeoutMs) {
    let open = recs.length;
    let timer = null;
    /** @type {[WorkerRecord, number][]} */
    const asked = [];
    const results = Promise.all(recs.map((rec, i) => new Promise((resolve) => {
      const done = (result) => {
        if (--open === 0 && timer !== null) clearTimeout(timer);
        resolve(result);
      };
      if (rec.helloAt === null || !rec.worker.isConnected()) return done(null);
      const id = ++this.seq;
      rec.pending.set(id, done);
      asked.push([rec, id]);
      try {
        rec.worker.process.send(message(kind, { id, ...fieldsOf(i) }));
      } catch {
        rec.pending.delete(id);
        done(null);
      }
    })));
    if (open > 0) {
      timer = setTimeout(() => {
        for (const [rec, id] of asked) {
          const resolve = rec.pending.get(id);
          if (!resolve) continue;
          rec.pending.delete(id);
          resolve(null);
        }
      }, timeoutMs);
    }
    return results;
  }

  /**
   * Tell rec's agent to drain, then disconnect it: it stops accepting and finishes what it has.
   * `snapshot` ({file}): the heap snapshot it writes once every server has closed, before it leaves.
   */
  disconnect(rec, { snapshot = null } = {}) {
    if (rec.worker.isConnected()) {
      // Long-lived connections are closed over a spread well inside killTimeout, so their clients
      // reconnect to the other workers a few at a time and no kill is needed.
      const closeWithinMs = Math.min(5000, Math.max(0, this.config.recycle.killTimeout / 4));
      try { rec.worker.process.send(message(KIND.DRAIN, { id: 0, closeWithinMs, ...(snapshot ? { snapshot: { file: snapshot.file } } : {}) })); } catch { /* exiting */ }
      rec.worker.disconnect();
    }
  }

}

function realOr(p) {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** How long each worker's sample history reaches back: a leak window and a quarter, at least 10 min. */
export function sampleHistoryMs(config) {
  return Math.max(config.leak ? config.leak.window * 1.25 : 0, 10 * 60_000);
}
