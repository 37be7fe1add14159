// Forks workers into stable slots and keeps its own registry of every live worker process:
// cluster drops a worker from cluster.workers at disconnect while its process lives on, and a
// drained worker must still be waited for and, if need be, killed.
import cluster from 'node:cluster';
import { EventEmitter } from 'node:events';
import { STATES } from '../constants.js';
import { KIND, message, isOurs } from '../protocol.js';
import { SampleWindow } from '../core/sample-window.js';
import { transition } from '../core/worker-state.js';
import { startTime } from '../proc/memory.js';
import { routeWorkerOutput } from './app-output.js';

const AGENT_URL = new URL('../worker/agent.js', import.meta.url).href;
const STDERR_TAIL_BYTES = 4096;

/**
 * One worker process. Plain data everyone reads and only the pool writes: its lifecycle moves
 * through transition(), its remembered tree through rememberTree(). The poller pushes samples
 * into `window`, which is a history, not the handle's state.
 * @typedef {object} WorkerHandle
 * @property {number} slot @property {number} pid @property {string} state
 * @property {import('node:cluster').Worker} worker
 * @property {number} startedAt @property {number|null} readyAt @property {number} lastReplyAt
 * @property {number|null} helloAt @property {object|null} facts  what the agent said of itself at hello
 * @property {SampleWindow} window @property {number} jitterDraw
 * @property {{reason:string, decidedAt:number}|null} retiring  set when it starts to drain
 * @property {number|null} drainStartedAt
 * @property {boolean} forced @property {boolean} notReady
 * @property {object} [heldBy]  what the agent said held it, asked just before a forced kill
 * @property {{pid:number,start:number|null}[]} tree  processes to kill with it
 * @property {number|null} procStart  the worker's start time, told to the orphan guard
 * @property {string} stderrTail
 * @property {Promise<{code:number|null, signal:string|null}>} exited
 */

// The facts a move may set, per target state: anything else is a bug caught at once.
const FACTS = {
  [STATES.READY]: ['readyAt'],
  [STATES.DRAINING]: ['retiring', 'drainStartedAt'],
  [STATES.KILLING]: ['retiring', 'forced', 'notReady', 'heldBy'],
  [STATES.EXITED]: [],
};

export class Pool extends EventEmitter {
  /**
   * @param {{config: import('../types.js').Config, now?: () => number, output?: Parameters<typeof routeWorkerOutput>[0]|null}} o
   * `output`: where the workers' stdout and stderr go, line by line; null leaves them on the primary's own fds.
   */
  constructor({ config, now = Date.now, output = null }) {
    super();
    this.config = config;
    this.now = now;
    this.output = output;
    /** @type {Set<WorkerHandle>} */
    this.live = new Set();
    this.seq = 0;
    /** Set by the parts that need it in every worker forked (NODESUP_BALANCE: primary/realtime.js). */
    this.workerEnv = {};
    this.configure(config);
  }

  /** Settings for the workers forked from now on (a config reload); running workers keep theirs. */
  configure(config) {
    this.config = config;
    cluster.setupPrimary({
      exec: config.script,
      args: config.args,
      execArgv: [...config.nodeArgs, '--import', AGENT_URL],
      stdio: ['ignore', this.output ? 'pipe' : 'inherit', 'pipe', 'ipc'],
      cwd: process.cwd(),
    });
    this.windowMs = sampleHistoryMs(config);
  }

  /** Fork a worker into `slot`; it is 'spawning' until it listens or calls ready(). */
  spawn(slot) {
    const worker = cluster.fork({ ...this.config.env, ...this.workerEnv, NODESUP_SLOT: String(slot), NODESUP_NAME: this.config.name });
    const now = this.now();
    /** @type {WorkerHandle} */
    const h = {
      slot, worker, pid: worker.process.pid, state: STATES.SPAWNING,
      startedAt: now, readyAt: null, lastReplyAt: now, helloAt: null, facts: null,
      window: new SampleWindow({ maxAgeMs: this.windowMs, maxSamples: Math.ceil(this.windowMs / this.config.pollInterval) + 8 }),
      jitterDraw: Math.random(), retiring: null, drainStartedAt: null, forced: false, notReady: false,
      tree: [], procStart: startTime(worker.process.pid), stderrTail: '',
      pending: new Map(),
    };
    this.live.add(h);
    this.#wire(h);
    return h;
  }

  /** @type {WeakMap<object, (ready: boolean) => void>} settles a starting worker's whenReady() */
  #started = new WeakMap();
  /** @type {WeakMap<object, Promise<boolean>>} */
  #startOutcome = new WeakMap();

  #wire(h) {
    const { worker } = h;
    this.#startOutcome.set(h, new Promise((resolve) => this.#started.set(h, resolve)));
    h.exited = new Promise((resolve) => {
      worker.on('exit', (code, signal) => {
        this.live.delete(h);
        for (const p of h.pending.values()) { clearTimeout(p.timer); p.resolve(null); }
        h.pending.clear();
        this.transition(h, STATES.EXITED); // * -> EXITED
        this.#started.get(h)?.(false);
        const info = { code, signal };
        this.emit('exit', h, info);
        resolve(info);
      });
    });
    worker.on('error', () => { /* IPC write after exit: the exit handler owns the outcome */ });
    const tail = (chunk) => { h.stderrTail = (h.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES); };
    if (this.output) routeWorkerOutput(this.output, h.slot, worker.process.stdout, worker.process.stderr, tail);
    else worker.process.stderr?.on('data', (chunk) => { process.stderr.write(chunk); tail(chunk); });
    worker.on('listening', () => this.#ready(h));
    worker.process.on('internalMessage', (msg) => {
      if (!isOurs(msg)) return;
      if (msg.kind === KIND.REPLY) {
        const p = h.pending.get(msg.id);
        if (!p) return;
        h.pending.delete(msg.id);
        clearTimeout(p.timer);
        h.lastReplyAt = this.now();
        p.resolve(msg.ok ? msg.result : null);
      } else if (msg.kind === KIND.HELLO) {
        h.helloAt = this.now();
        h.lastReplyAt = h.helloAt;
        const { cmd, v, kind, ...facts } = msg;
        h.facts = facts;
      } else if (msg.kind === KIND.READY) this.#ready(h);
    });
  }

  #ready(h) {
    if (h.state !== STATES.SPAWNING) return;
    const readyAt = this.now();
    this.transition(h, STATES.READY, { readyAt }); // SPAWNING -> READY
    h.lastReplyAt = readyAt;
    this.#started.get(h)?.(true);
    this.emit('ready', h);
  }

  /**
   * The one place a worker's lifecycle changes: the move is checked against the transition table
   * and may carry the facts that belong to it (when it drained, why it retires, that it was forced).
   * A fact already set stays: the first reason given for a retirement is the one reported.
   */
  transition(h, to, facts = {}) {
    if (h.state !== to) h.state = transition(h.state, to);
    for (const [k, v] of Object.entries(facts)) {
      if (!FACTS[to].includes(k)) throw new Error(`a move to ${to} cannot set ${k}`);
      if (k === 'retiring' || k === 'drainStartedAt') h[k] ??= v;
      else h[k] = v;
    }
  }

  /**
   * Processes to kill with h (pid and start time, so a recycled pid is never hit): the poll's
   * fresh listing replaces the list (children that exited are forgotten); a drain adds to it.
   */
  rememberTree(h, entries, { replace = false } = {}) {
    if (replace) {
      h.tree = entries;
      return;
    }
    const known = new Map(h.tree.map((p) => [p.pid, p]));
    for (const p of entries) if (p.start !== null) known.set(p.pid, p);
    h.tree = [...known.values()];
  }

  /** Resolves true once h is ready, false on timeout or exit first. */
  whenReady(h, timeoutMs) {
    if (h.state === STATES.READY) return Promise.resolve(true);
    if (h.state !== STATES.SPAWNING) return Promise.resolve(false);
    // One promise per worker, not a pool listener per waiter: 128 workers starting at once would
    // otherwise be 128 'ready' listeners (and a MaxListenersExceededWarning).
    let timer;
    const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
    return Promise.race([this.#startOutcome.get(h), timeout]).finally(() => clearTimeout(timer));
  }

  /** Ask h's agent something; resolves with the result, or null on timeout, error or exit. */
  request(h, kind, fields, timeoutMs) {
    if (h.helloAt === null || !h.worker.isConnected()) return Promise.resolve(null);
    const id = ++this.seq;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { h.pending.delete(id); resolve(null); }, timeoutMs);
      h.pending.set(id, { resolve, timer });
      try {
        h.worker.process.send(message(kind, { id, ...fields }));
      } catch {
        clearTimeout(timer);
        h.pending.delete(id);
        resolve(null);
      }
    });
  }

  /** Tell h's agent to drain, then disconnect it: it stops accepting and finishes what it has. */
  disconnect(h) {
    if (h.worker.isConnected()) {
      // Long-lived connections are closed over a spread well inside killTimeout, so their clients
      // reconnect to the other workers a few at a time and no kill is needed.
      const closeWithinMs = Math.min(5000, Math.max(0, this.config.recycle.killTimeout / 4));
      try { h.worker.process.send(message(KIND.DRAIN, { id: 0, closeWithinMs })); } catch { /* exiting */ }
      h.worker.disconnect();
    }
  }

  /** Live workers, in no particular order. */
  handles() {
    return [...this.live];
  }
}

/** How long each worker's sample history reaches back: a leak window and a quarter, at least 10 min. */
export function sampleHistoryMs(config) {
  return Math.max(config.leak ? config.leak.window * 1.25 : 0, 10 * 60_000);
}
