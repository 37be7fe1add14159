// The recycle procedure (docs/architecture.md, "The recycle"): a full GC first when it may help,
// the replacement forked and ready before the old worker is touched, then the drain (drain.js):
// disconnect (it stops accepting and finishes in-flight work), then SIGTERM and SIGKILL to its
// whole tree after killTimeout.
import { EventEmitter } from 'node:events';
import { EVENTS, MEMORY_REASONS, REASONS, RECYCLE_OUTCOMES as OUT, RETIRE, SPAWN_CAUSES, STATES } from '../../constants.js';
import { KIND } from '../../protocol.js';
import { OUTCOME } from '../../core/policy/outcomes.js';
import { stillOver } from '../../core/policy/gc-recheck.js';
import { memoryOf } from '../../core/forecast/memory-of.js';
import { readRetained } from './retained-read.js';
import { Drain } from './drain.js';

export { KILL_GRACE_MS } from './drain.js';
const GC_TIMEOUT_MS = 10_000; // a full GC of a multi-GB heap takes seconds
const GC_SETTLE_STEPS = 10;
const GC_SETTLE_STEP_MS = 100;
const CROSSING_PROBE_MS = 50;
// How long the retained sites of a worker recycled for memory are waited for: the replacement
// starts meanwhile, and a worker that does not answer in time is recycled without them.
const SITES_TIMEOUT_MS = 1500;
const ANNOUNCE_WAIT_MS = 300;

/**
 * @typedef {object} Sampler  how the recycler reads a worker between ticks (poller.js's sampler())
 * @property {(rec:object, stats:object|null, o:{full:boolean}) => object} sample  one sample now, kept in rec's window
 * @property {(rec:object) => number|null} treeRss  rec's tree RSS now, kept nowhere
 */

export class Recycler extends EventEmitter {
  /**
   * @param {object} o
   * @param {import('../lifecycle/pool.js').Pool} o.pool  forks, promotes and drains; the one writer of the workers' records
   * @param {Sampler} o.sampler
   * @param {{push:(outcome:object) => void}} o.inbox  what the policy must learn of a recycle (core/policy/outcomes.js)
   * @param {(level:string, fields:object, msg?:string) => void} o.report  the supervisor's one event stream
   * @param {import('./drain-snapshots.js').DrainSnapshots|null} [o.snapshots]
   * @param {() => number} [o.now]
   * @param {{setTimeout: typeof setTimeout, clearTimeout: typeof clearTimeout}} [o.timers]
   */
  constructor({ pool, sampler, inbox, report, snapshots = null, now = Date.now, timers = globalThis }) {
    super();
    /** @type {import('./drain-snapshots.js').DrainSnapshots|null} the drained worker's heap snapshot */
    this.snapshots = snapshots;
    this.timers = timers;
    this.pool = pool;
    this.sampler = sampler;
    this.inbox = inbox;
    this.report = report;
    this.now = now;
    this.stopping = false;
    /** Slots with a recycle in progress. */
    this.busy = new Set();
    /**
     * Busy slots whose early replacement is ready and waits for the old worker's crossing. They do
     * not count against maxConcurrent, which bounds start-ups: with one slot of room, a spare
     * waiting seconds for its crossing would hold back another slot's worker already over its limit.
     */
    this.waiting = new Set();
    /** The one owner of ending workers: recycles, stops and scale-downs all drain through it. */
    this.drain = new Drain({ pool, now, timers });
  }

  /** The settings recycles use from now on (a config reload calls it again). */
  configure({ config, totalLimit = null }) {
    this.config = config;
    this.totalLimit = totalLimit;
    this.drain.configure(config);
    return this;
  }

  /** A stop began: no replacement is forked from now on. */
  stop() {
    this.stopping = true;
  }

  #sleep(ms) {
    return new Promise((resolve) => this.timers.setTimeout(resolve, ms));
  }

  /** Room for one more recycle now (maxConcurrent), and the slot not already recycling. */
  hasRoom(slot) {
    return !this.busy.has(slot) && this.busy.size - this.waiting.size < this.config.recycle.maxConcurrent;
  }

  /**
   * Manual recycles and reloads queue rather than exceed maxConcurrent. The room check and
   * recycle()'s busy.add run in one synchronous step, so two waiters never both start.
   */
  async recycleWhenRoom(slot, v, trace = null) {
    while (!this.hasRoom(slot)) await EventEmitter.once(this, 'freed');
    return this.recycle(slot, v, trace);
  }

  /**
   * Replace the worker in `slot` for verdict v. Resolves with what happened: a RECYCLE_OUTCOMES value.
   * `trace`, when given, is handed the records of the old worker and its replacement (`old`,
   * `next`), which a person's recycle or reload reports on (their pids, start-up, drain, exit).
   */
  async recycle(slot, v, trace = null) {
    const old = this.pool.currentOf(slot);
    if (!old || old.state !== STATES.READY || this.busy.has(slot)) return OUT.SKIPPED;
    this.busy.add(slot);
    if (trace) trace.old = old;
    const decidedAt = this.now();
    try {
      // The verdict says whether a full GC comes first (core/policy/decide.js); the policy learns it ran.
      if (v.gcFirst) {
        this.inbox.push({ type: OUTCOME.GC, id: old.id, at: decidedAt });
        if (await this.#gcHelped(old, v)) return OUT.GC;
      }
      // The GC took time: a stop may have begun, and a replacement forked now would outlive it.
      if (this.stopping || old.state !== STATES.READY) return OUT.SKIPPED;
      // What the worker retained is read now, before the drain. A recycle is announced before its
      // replacement is forked (people read the log in that order), so a worker over its limit
      // waits for the read at most ANNOUNCE_WAIT_MS (a profile read takes tens of ms; a worker not
      // profiling answers at once); a predicted one is announced at its crossing, long after.
      const retained = isMemory(v) ? readRetained(this.pool, old, SITES_TIMEOUT_MS) : null;
      if (!v.predictive) {
        if (retained) await Promise.race([retained.promise, new Promise((r) => this.timers.setTimeout(r, ANNOUNCE_WAIT_MS))]);
        this.#announce(slot, old, { ...v, ...retained?.value() }, decidedAt);
      }
      // Only a reload starts the configured script as it is now (a new release); every other
      // replacement starts the code that serves while a reload has failed (pool.js).
      const next = this.pool.spawn(slot, SPAWN_CAUSES.REPLACE, { profile: Boolean(v.profileNext), newCode: v.reason === REASONS.RELOAD });
      if (trace) trace.next = next;
      const ready = this.pool.whenReady(next, this.config.recycle.readyTimeout);
      if (!(await ready)) {
        // A stop during the replacement's startup is not a failure of the app.
        const cancelled = this.stopping;
        // A replacement that exited before it was ready says how (its code or signal), not a timeout.
        const exited = next.exitStatus ? { exitCode: next.exitStatus.code, signal: next.exitStatus.signal } : {};
        this.report(cancelled ? 'info' : 'error', { event: EVENTS.RECYCLE_FAILED, slot, pid: old.pid, reason: v.reason, replacementPid: next.pid, readyTimeoutMs: this.config.recycle.readyTimeout, cancelled, ...exited });
        this.inbox.push({ type: OUTCOME.FAILED, slot, until: this.now() + this.config.recycle.readyTimeout });
        await this.retire(next, { reason: RETIRE.SPARE, decidedAt });
        return OUT.FAILED;
      }
      if (v.predictive) {
        const crossedAt = await this.#awaitCrossing(slot, old, v, decidedAt);
        if (crossedAt === null) {
          this.inbox.push({ type: OUTCOME.SPARE, id: old.id, at: this.now() });
          this.report('info', { event: EVENTS.RECYCLE_SKIPPED, slot, pid: old.pid, reason: v.reason, predictive: true, sparePid: next.pid, limit: v.limit });
          await this.retire(next, { reason: RETIRE.SPARE, decidedAt });
          return OUT.SPARE;
        }
        this.#announce(slot, old, { ...v, value: this.sampler.treeRss(old) ?? v.value, leadMs: crossedAt.leadMs, ...retained?.value() }, decidedAt);
      }
      if (this.pool.currentOf(slot) === old) this.pool.promote(next);
      const story = retained?.value().retained;
      if (story) this.inbox.push({ type: OUTCOME.RECYCLED, slot, id: old.id, at: this.now(), reason: v.reason, ...story });
      await this.#retireReplaced(old, v, decidedAt, next);
      return OUT.RECYCLED;
    } finally {
      this.busy.delete(slot);
      this.emit('freed');
    }
  }

  // The replacement serves beside the old worker until the old one crosses its limit; a crossing
  // that does not come within twice its forecast costs the spare, never a request. Resolves with
  // how long the spare waited, or null when the crossing did not come.
  async #awaitCrossing(slot, old, v, decidedAt) {
    const readyAt = this.now();
    const deadline = Math.max(decidedAt + 2 * v.crossingInMs, readyAt) + 2 * this.config.pollInterval;
    // The old worker goes on growing while it drains: drain it that much before the limit.
    const perMs = v.crossingInMs > 0 ? Math.max(0, v.limit - v.value) / v.crossingInMs : 0;
    const drainMs = this.drain.slowestMs();
    const at = Math.max(v.limit * 0.9, v.limit - perMs * drainMs);
    this.waiting.add(slot);
    this.emit('freed');
    const crossedAt = await this.#crossing(old, at, deadline).finally(() => this.waiting.delete(slot));
    return crossedAt === null ? null : { leadMs: crossedAt - readyAt };
  }

  #announce(slot, old, v, decidedAt) {
    const { slot: _slot, pid: _pid, reason, value, limit, trend = null, ...explained } = v;
    this.report('warn', {
      event: EVENTS.WORKER_RECYCLE, slot, pid: old.pid, reason, value, limit,
      uptimeMs: decidedAt - old.startedAt, memory: breakdown(old.window.last()), trend, ...explained,
    });
  }

  // Resolves with the time rec's tree crossed `limit` (or left READY), or null at the deadline.
  // Read from /proc every CROSSING_PROBE_MS: a 20 MB/s leak moves 1 MB between reads.
  async #crossing(rec, limit, deadline) {
    for (;;) {
      if (rec.state !== STATES.READY || this.stopping) return this.now();
      const rss = this.sampler.treeRss(rec);
      if (rss !== null && rss >= limit) return this.now();
      if (this.now() >= deadline) return null;
      await this.#sleep(CROSSING_PROBE_MS);
    }
  }

  // Step 2 of the recycle: a full GC, a fresh sample, and the recycle only if still over.
  async #gcHelped(rec, v) {
    const before = rec.window.last();
    const r = await this.pool.request(rec, KIND.GC, {}, GC_TIMEOUT_MS);
    if (!r) {
      // A worker still serving that did not answer is recycled without the GC's verdict: say so,
      // or the recycle that follows reads as if no GC had been tried.
      if (rec.state === STATES.READY && !this.stopping) {
        this.report('warn', { event: EVENTS.WORKER_GC, slot: rec.slot, pid: rec.pid, reason: v.reason, answered: false, timeoutMs: GC_TIMEOUT_MS, stillOver: true });
      }
      return false;
    }
    let sample = this.sampler.sample(rec, r.after, { full: true });
    let over = this.#stillOver(rec, v);
    // V8 hands freed pages back to the OS on a background thread: RSS falls for a while after the
    // GC has answered. Watch it settle (≤ 1 s) before calling the GC useless.
    for (let i = 0; over && i < GC_SETTLE_STEPS; i++) {
      await this.#sleep(GC_SETTLE_STEP_MS);
      const prev = sample;
      sample = this.sampler.sample(rec, r.after, { full: false });
      if ((memoryOf(sample) ?? Infinity) >= (memoryOf(prev) ?? -Infinity)) break; // stopped falling
      over = this.#stillOver(rec, v);
    }
    this.report('info', {
      event: EVENTS.WORKER_GC, slot: rec.slot, pid: rec.pid, reason: v.reason,
      rssBefore: memoryOf(before), rssAfter: sample.treeRss,
      heapBefore: r.before.heapUsed, heapAfter: sample.heapUsed, stillOver: over, ...(r.pauseMs != null ? { pauseMs: round1(r.pauseMs) } : {}),
    });
    return !over;
  }

  #stillOver(rec, v) {
    const fleet = this.pool.serving().map((w) => ({ slot: w.slot, sample: w.window.last() }));
    return stillOver(v, { window: rec.window, fleet, limits: this.config.limits, totalLimit: this.totalLimit, now: this.now() });
  }

  // The replaced worker drains; one replaced for memory may write a heap snapshot first
  // (drain-snapshots.js). The slot's lane is freed once it has drained (every server closed), not
  // when the snapshot is written: a snapshot never holds back another recycle.
  async #retireReplaced(old, v, decidedAt, next) {
    const snapshot = this.snapshots?.plan(old, v) ?? null;
    const exited = this.retire(old, { reason: v.reason, decidedAt, snapshot });
    if (!snapshot) return exited;
    this.snapshots.collect(snapshot, { exited, replacementReadyAt: next.readyAt });
    return Promise.race([exited, disconnected(old.worker)]);
  }

  /** Drain rec and wait for its exit (drain.js). */
  retire(rec, o) {
    return this.drain.retire(rec, o);
  }

  /** SIGTERM rec's tree now, SIGKILL what is left soon after (drain.js). */
  forceKill(rec, o) {
    return this.drain.forceKill(rec, o);
  }
}

/** The memory breakdown a worker.recycle event carries. */
export function breakdown(s) {
  if (!s) return null;
  return {
    rss: memoryOf(s), heapUsed: s.heapUsed, heapTotal: s.heapTotal, external: s.external,
    arrayBuffers: s.arrayBuffers, native: s.native, children: s.childrenRss,
    ...(s.threads ? { threads: s.threads, threadsHeapUsed: s.threadsHeapUsed } : {}),
  };
}

function round1(x) {
  return Math.round(x * 10) / 10;
}

// A recycle for memory (a limit or a leak) tells what the worker retained.
function isMemory(v) {
  return MEMORY_REASONS.has(v.reason) || v.reason === REASONS.LEAK;
}

// The worker's IPC channel closed: its drain is over (cluster disconnects once every server closed).
function disconnected(worker) {
  return worker.isConnected() ? new Promise((resolve) => worker.once('disconnect', resolve)) : Promise.resolve();
}
