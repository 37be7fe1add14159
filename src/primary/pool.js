// Forks workers into stable slots and keeps its own registry of every live worker process:
// cluster drops a worker from cluster.workers at disconnect while its process lives on, and a
// drained worker must still be waited for and, if need be, killed.
import cluster from 'node:cluster';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { STATES } from '../constants.js';
import { KIND, message, isOurs } from '../protocol.js';
import { SampleWindow } from '../core/sample-window.js';
import { transition } from '../core/worker-state.js';

const AGENT_URL = new URL('../worker/agent.js', import.meta.url).href;
const STDERR_TAIL_BYTES = 4096;

/**
 * One worker process. Plain data the supervisor and the recycler read; the pool owns the IPC.
 * @typedef {object} WorkerHandle
 * @property {number} slot @property {number} pid @property {string} state
 * @property {import('node:cluster').Worker} worker
 * @property {number} startedAt @property {number|null} readyAt @property {number} lastReplyAt
 * @property {SampleWindow} window @property {number} jitterDraw
 * @property {{reason:string, decidedAt:number}|null} retiring
 * @property {boolean} forced @property {{pid:number,start:number|null}[]} tree
 * @property {string} stderrTail @property {number|null} firstOverAt
 * @property {Promise<{code:number|null, signal:string|null}>} exited
 */

export class Pool extends EventEmitter {
  /** @param {{config: import('../types.js').Config, now?: () => number, stdout?: any, stderr?: NodeJS.WritableStream}} o */
  constructor({ config, now = Date.now, stdout = 'inherit', stderr = process.stderr }) {
    super();
    this.config = config;
    this.now = now;
    this.stderr = stderr;
    /** @type {Set<WorkerHandle>} */
    this.live = new Set();
    this.seq = 0;
    cluster.setupPrimary({
      exec: config.script,
      args: config.args,
      execArgv: [...config.nodeArgs, '--import', AGENT_URL],
      stdio: ['ignore', stdout, 'pipe', 'ipc'],
      cwd: process.cwd(),
    });
    this.windowMs = sampleHistoryMs(config);
  }

  /** Fork a worker into `slot`; it is 'spawning' until it listens or calls ready(). */
  spawn(slot) {
    const worker = cluster.fork({ ...this.config.env, NODESUP_SLOT: String(slot), NODESUP_NAME: this.config.name });
    const now = this.now();
    /** @type {WorkerHandle} */
    const h = {
      slot, worker, pid: worker.process.pid, state: STATES.SPAWNING,
      startedAt: now, readyAt: null, lastReplyAt: now, helloAt: null,
      window: new SampleWindow({ maxAgeMs: this.windowMs, maxSamples: Math.ceil(this.windowMs / this.config.pollInterval) + 8 }),
      jitterDraw: Math.random(), retiring: null, forced: false, tree: [], stderrTail: '', firstOverAt: null,
      pending: new Map(),
    };
    this.live.add(h);
    this.#wire(h);
    return h;
  }

  #wire(h) {
    const { worker } = h;
    h.exited = new Promise((resolve) => {
      worker.on('exit', (code, signal) => {
        this.live.delete(h);
        for (const p of h.pending.values()) { clearTimeout(p.timer); p.resolve(null); }
        h.pending.clear();
        h.state = STATES.EXITED;
        const info = { code, signal };
        this.emit('exit', h, info);
        resolve(info);
      });
    });
    worker.on('error', () => { /* IPC write after exit: the exit handler owns the outcome */ });
    worker.process.stderr?.on('data', (chunk) => {
      this.stderr.write(chunk);
      h.stderrTail = (h.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
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
      } else if (msg.kind === KIND.READY) this.#ready(h);
    });
  }

  #ready(h) {
    if (h.state !== STATES.SPAWNING) return;
    h.state = transition(h.state, STATES.READY); // SPAWNING -> READY
    h.readyAt = this.now();
    h.lastReplyAt = h.readyAt;
    this.emit('ready', h);
  }

  /** Resolves true once h is ready, false on timeout or exit first. */
  whenReady(h, timeoutMs) {
    if (h.state === STATES.READY) return Promise.resolve(true);
    if (h.state !== STATES.SPAWNING) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (ok) => { clearTimeout(timer); this.off('ready', onReady); this.off('exit', onExit); resolve(ok); };
      const onReady = (w) => { if (w === h) done(true); };
      const onExit = (w) => { if (w === h) done(false); };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.on('ready', onReady);
      this.on('exit', onExit);
    });
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
      try { h.worker.process.send(message(KIND.DRAIN, { id: 0 })); } catch { /* exiting */ }
      h.worker.disconnect();
    }
  }

  /** Live workers, in no particular order. */
  handles() {
    return [...this.live];
  }
}

export const AGENT_PATH = fileURLToPath(AGENT_URL);

/** How long each worker's sample history reaches back: a leak window and a quarter, at least 10 min. */
export function sampleHistoryMs(config) {
  return Math.max(config.leak ? config.leak.window * 1.25 : 0, 10 * 60_000);
}
