// What the primary knows of each worker, in one record per worker, and which worker serves each
// slot: kept here and written only here. The pool (which forks and talks to the workers) extends
// it; the poller, the recycler and the tick write through its methods and read the records as
// plain data. It forks nothing, so it is tested in-process as it is.
import { EventEmitter } from 'node:events';
import { STATES } from '../../constants.js';
import { transition } from '../../core/worker-state.js';

/**
 * One worker process: its record. Plain data everyone reads and only the pool writes: its
 * lifecycle moves through transition(), its remembered tree through rememberTree(), its samples
 * through record(), the probe's memory through notePoll().
 * @typedef {object} WorkerHandle
 * @property {number} id  unique for the supervisor's life (pids are reused): what the policy keys by
 * @property {number} slot @property {number} pid @property {string} state
 * @property {import('node:cluster').Worker} worker
 * @property {number} startedAt @property {number|null} readyAt @property {number} lastReplyAt
 * @property {number|null} helloAt @property {object|null} facts  what the agent said of itself at hello: pid, node, and
 *   the Sample's constants (heapLimit, gcFlags: src/sample/fields.js), which the poller puts in each of its samples
 * @property {SampleWindow} window @property {number} jitterDraw
 * @property {{reason:string, decidedAt:number}|null} retiring  set when it starts to drain
 * @property {number|null} drainStartedAt
 * @property {boolean} forced @property {boolean} notReady
 * @property {object} [heldBy]  what the agent said held it, asked just before a forced kill
 * @property {{pid:number,start:number|null}[]} tree  processes to kill with it
 * @property {number|null} procStart  the worker's start time, told to the orphan guard
 * @property {string} stderrTail
 * @property {{polls:number, pssBase:object|null}} probe  the poller's memory of this worker
 * @property {Promise<{code:number|null, signal:string|null}>} exited
 */

/** @typedef {{slot:number, current:WorkerHandle|null}} Slot */

// Recent startup times (spawn → ready) kept: a replacement is forecast to take the slowest of them.
const STARTUPS = 5;

// The facts a move may set, per target state: anything else is a bug caught at once.
const FACTS = {
  [STATES.READY]: ['readyAt'],
  [STATES.DRAINING]: ['retiring', 'drainStartedAt'],
  [STATES.KILLING]: ['retiring', 'forced', 'notReady', 'heldBy'],
  [STATES.EXITED]: [],
};

export class WorkerRecords extends EventEmitter {
  /** @param {{now?: () => number}} [o] */
  constructor({ now = Date.now } = {}) {
    super();
    this.now = now;
    /** @type {Set<WorkerHandle>} every worker process not yet exited */
    this.live = new Set();
    /** @type {Slot[]} which worker serves each slot */
    this.slots = [];
    this.ids = 0;
    this.startups = [];
  }

  /** A new worker id, unique for the supervisor's life. */
  nextId() {
    return ++this.ids;
  }

  /** Keep the record of a new worker; `serve`: it serves its slot at once (a first start, a restart). */
  add(h, { serve = false } = {}) {
    this.live.add(h);
    if (serve && this.slots[h.slot]) this.#serve(h);
    else this.#changed(h);
  }

  /** h exited: its record moves to EXITED and leaves the registry. Returns whether it was serving its slot. */
  remove(h) {
    this.live.delete(h);
    this.transition(h, STATES.EXITED); // * -> EXITED
    const s = this.slots[h.slot];
    const wasCurrent = s?.current === h;
    if (wasCurrent) s.current = null;
    this.#changed(h);
    return wasCurrent;
  }

  /** The agent answered at `at`: the worker is alive. */
  noteReply(h, at) {
    h.lastReplyAt = at;
  }

  /** h became ready at `at` (SPAWNING -> READY); its startup time is kept for the forecasts. */
  markReady(h, at) {
    this.transition(h, STATES.READY, { readyAt: at }); // SPAWNING -> READY
    h.lastReplyAt = at;
    this.startups.push(at - h.startedAt);
    if (this.startups.length > STARTUPS) this.startups.shift();
  }

  /** The agent said hello with what it knows of itself. */
  noteHello(h, facts, at) {
    h.helloAt = at;
    h.lastReplyAt = at;
    h.facts = facts;
  }

  /** Grow or shrink the slot table to `n`; a slot dropped keeps no worker (drain them first). */
  resize(n) {
    while (this.slots.length < n) this.slots.push({ slot: this.slots.length, current: null });
    this.slots.length = n;
  }

  /** A ready replacement takes over its slot. */
  promote(h) {
    if (this.slots[h.slot]) this.#serve(h);
  }

  #serve(h) {
    const s = this.slots[h.slot];
    const before = s.current;
    s.current = h;
    if (before && before !== h && this.live.has(before)) this.#changed(before);
    this.#changed(h);
  }

  // Every change a reader outside the primary may show is announced here, the records' one
  // writer: the report side keeps its own picture from these, and never reads the records.
  #changed(h) {
    this.emit('changed', {
      id: h.id, slot: h.slot, pid: h.pid, state: h.state, startedAt: h.startedAt, readyAt: h.readyAt ?? null,
      retiring: h.retiring ?? null, current: this.slots[h.slot]?.current === h,
    });
  }

  /** The current worker of `slot`, or null. */
  currentOf(slot) {
    return this.slots[slot]?.current ?? null;
  }

  /** The current, ready worker of each slot. */
  serving() {
    const out = [];
    for (const s of this.slots) if (s.current?.state === STATES.READY) out.push(s.current);
    return out;
  }

  /** The slowest of the app's recent startups (spawn → ready), ms, or null before the first. */
  startupMs() {
    return this.startups.length ? Math.max(...this.startups) : null;
  }

  /** Keep a sample of h (and the tree the poll listed, which replaces the remembered one). */
  record(h, sample, tree = null) {
    if (tree) this.rememberTree(h, tree, { replace: true });
    h.window.push(sample);
    // The one place a sample is announced: the recycler's own samples reach the chart too.
    this.emit('sample', { id: h.id, slot: h.slot, pid: h.pid, current: this.slots[h.slot]?.current === h, sample });
  }

  /** Count a poll of h; `pssBase` is what its full read found shared, kept for the reads between. */
  notePoll(h, { pssBase } = {}) {
    if (pssBase === undefined) h.probe.polls++;
    else h.probe.pssBase = pssBase;
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
    if (to !== STATES.EXITED) this.#changed(h);
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

  /** Live workers, in no particular order. */
  handles() {
    return [...this.live];
  }
}
