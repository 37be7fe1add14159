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
 * @typedef {object} WorkerRecord
 * @property {number} id  unique for the supervisor's life (pids are reused): what the policy keys by
 * @property {number} slot @property {number} pid @property {string} state
 * @property {import('node:cluster').Worker} worker
 * @property {number} startedAt @property {number|null} readyAt @property {number} lastReplyAt
 * @property {number} quietSkips  polls skipped in a row while quiet (core/policy/quiet-poll.js)
 * @property {number|null} helloAt @property {object|null} facts  what the agent said of itself at hello: pid, node, and
 *   the Sample's constants (heapLimit, gcFlags: src/sample/fields.js), which the poller puts in each of its samples
 * @property {SampleWindow} window @property {number} jitterDraw
 * @property {{reason:string, decidedAt:number}|null} retiring  set when it starts to drain
 * @property {number|null} drainStartedAt
 * @property {boolean} forced @property {boolean} notReady
 * @property {object} [heldBy]  what the agent said held it, asked just before a forced kill
 * @property {{pid:number,start:number|null}[]} tree  processes to kill with it
 * @property {number|null} procStart  the worker's start time, told to the orphan guard
 * @property {boolean} fromReload  started by a reload: the new code the slot's history does not know
 * @property {string} stderrTail
 * @property {{polls:number, pssBase:object|null}} probe  the poller's memory of this worker
 * @property {Map<number, (result: any) => void>} pending  requests to its agent awaiting a reply, by id
 * @property {Promise<{code:number|null, signal:string|null}>} exited
 */

/** @typedef {{slot:number, current:WorkerRecord|null}} Slot */

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
    /** @type {Set<WorkerRecord>} every worker process not yet exited */
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
  add(rec, { serve = false } = {}) {
    this.live.add(rec);
    if (serve && this.slots[rec.slot]) this.#serve(rec);
    else this.#changed(rec);
  }

  /** rec exited: its record moves to EXITED and leaves the registry. Returns whether it was serving its slot. */
  remove(rec) {
    this.live.delete(rec);
    this.transition(rec, STATES.EXITED); // * -> EXITED
    const s = this.slots[rec.slot];
    const wasCurrent = s?.current === rec;
    if (wasCurrent) s.current = null;
    this.#changed(rec);
    return wasCurrent;
  }

  /** The agent answered at `at`: the worker is alive. */
  noteReply(rec, at) {
    rec.lastReplyAt = at;
  }

  /**
   * The tick's choice for a quiet worker (core/policy/quiet-poll.js): `skipped` polls skipped in a
   * row so far. Asked again after skips, its silence counts from one interval before this ask, as
   * if it had been asked and had answered every poll between (it had answered the ask before
   * them): the unresponsive check counts the asks a worker did not answer, not the polls it was
   * not asked.
   */
  noteQuiet(rec, skipped, at, pollInterval) {
    if (skipped === 0 && rec.quietSkips > 0) rec.lastReplyAt = Math.max(rec.lastReplyAt, at - pollInterval);
    rec.quietSkips = skipped;
  }

  /** rec became ready at `at` (SPAWNING -> READY); its startup time is kept for the forecasts. */
  markReady(rec, at) {
    this.transition(rec, STATES.READY, { readyAt: at }); // SPAWNING -> READY
    rec.lastReplyAt = at;
    this.startups.push(at - rec.startedAt);
    if (this.startups.length > STARTUPS) this.startups.shift();
  }

  /** The agent said hello with what it knows of itself. */
  noteHello(rec, facts, at) {
    rec.helloAt = at;
    rec.lastReplyAt = at;
    rec.facts = facts;
  }

  /** Grow or shrink the slot table to `n`; a slot dropped keeps no worker (drain them first). */
  resize(n) {
    while (this.slots.length < n) this.slots.push({ slot: this.slots.length, current: null });
    this.slots.length = n;
  }

  /** A ready replacement takes over its slot. */
  promote(rec) {
    if (this.slots[rec.slot]) this.#serve(rec);
  }

  #serve(rec) {
    const s = this.slots[rec.slot];
    const before = s.current;
    s.current = rec;
    if (before && before !== rec && this.live.has(before)) this.#changed(before);
    this.#changed(rec);
  }

  // Every change a reader outside the primary may show is announced here, the records' one
  // writer: the report side keeps its own picture from these, and never reads the records.
  #changed(rec) {
    this.emit('changed', {
      id: rec.id, slot: rec.slot, pid: rec.pid, state: rec.state, startedAt: rec.startedAt, readyAt: rec.readyAt ?? null,
      retiring: rec.retiring ?? null, current: this.slots[rec.slot]?.current === rec,
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

  /** Keep a sample of rec (and the tree the poll listed, which replaces the remembered one). */
  record(rec, sample, tree = null) {
    if (tree) this.rememberTree(rec, tree, { replace: true });
    rec.window.push(sample);
    // The one place a sample is announced: the recycler's own samples reach the chart too.
    this.emit('sample', { id: rec.id, slot: rec.slot, pid: rec.pid, current: this.slots[rec.slot]?.current === rec, sample });
  }

  /** Count a poll of rec; `pssBase` is what its full read found shared, kept for the reads between. */
  notePoll(rec, { pssBase } = {}) {
    if (pssBase === undefined) rec.probe.polls++;
    else rec.probe.pssBase = pssBase;
  }

  /**
   * The one place a worker's lifecycle changes: the move is checked against the transition table
   * and may carry the facts that belong to it (when it drained, why it retires, that it was forced).
   * A fact already set stays: the first reason given for a retirement is the one reported.
   */
  transition(rec, to, facts = {}) {
    if (rec.state !== to) rec.state = transition(rec.state, to);
    for (const [k, v] of Object.entries(facts)) {
      if (!FACTS[to].includes(k)) throw new Error(`a move to ${to} cannot set ${k}`);
      if (k === 'retiring' || k === 'drainStartedAt') rec[k] ??= v;
      else rec[k] = v;
    }
    if (to !== STATES.EXITED) this.#changed(rec);
  }

  /**
   * Processes to kill with rec (pid and start time, so a recycled pid is never hit): the poll's
   * fresh listing replaces the list (children that exited are forgotten); a drain adds to it.
   */
  rememberTree(rec, entries, { replace = false } = {}) {
    if (replace) {
      rec.tree = entries;
      return;
    }
    const known = new Map(rec.tree.map((p) => [p.pid, p]));
    for (const p of entries) if (p.start !== null) known.set(p.pid, p);
    rec.tree = [...known.values()];
  }

  /** Live workers, in no particular order. */
  records() {
    return [...this.live];
  }
}
