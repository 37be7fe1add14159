// Recycles people ask for: `nodesup recycle <slot>` and `nodesup reload` (the control socket, the
// status screen's keys, SIGHUP). They queue for the recycler's room rather than exceed
// maxConcurrent, and a second ask for a slot already queued gets the first one's answer.
// Each slot's result says what a person needs to see: the old and new pids, how long the new worker
// took to be ready and the old one to drain, and why a new worker did not serve.
//
// A reload is a canary: it stops at the first slot whose new worker fails. Slots already started
// (maxConcurrent > 1) finish; no slot starts after the failure; the others keep their old workers,
// which keep serving. Re-running it to get past a bad release is the team's call. From then on,
// until a reload succeeds, a crash restart or a recycle starts the code that serves (the pool's pin),
// not the configured script, which still names the release that failed.
import { EventEmitter } from 'node:events';
import { EVENTS, REASONS, RECYCLE_OUTCOMES as OUT, RELOAD_RESULTS } from '../../constants.js';
import { parseSlot } from '../../slot.js';

// How long a failed worker's output is waited for once it has exited: its last stderr lines may
// still be in the pipe.
const OUTPUT_WAIT_MS = 500;
// The stderr lines a failed slot carries: the end of a stack trace and the error above it.
const STDERR_LINES = 20;
const STDERR_TAIL_BYTES = 4096; // the pool's bound: a tail that long may begin mid-line

/**
 * One slot's result, the same for `nodesup recycle` and each slot of a reload.
 * @typedef {object} SlotResult
 * @property {number} slot @property {string} reason @property {string} result  a RECYCLE_OUTCOMES value
 * @property {number|null} oldPid @property {number|null} newPid
 * @property {number} [readyMs]  the new worker's start-up: fork to ready
 * @property {number|null} [drainedMs]  the old worker's drain: drain to exit
 * @property {boolean} [forced] @property {object} [heldBy]  the old worker was killed at killTimeout, and what held it
 * @property {{why:'exited'|'timeout'|'cancelled'|'stopping'|'no-ready-worker', code?:number|null, signal?:string|null,
 *   readyTimeoutMs?:number, stderr?:string[]}} [failure]  why the slot kept its old worker
 */

export class ManualRecycles {
  /**
   * @param {object} o
   * @param {import('./recycler.js').Recycler} o.recycler
   * @param {import('../lifecycle/pool.js').Pool} o.pool  how many slots there are; pins the serving code after a failed reload
   * @param {(level:string, fields:object, msg?:string) => void} [o.report]  the supervisor's one event stream
   * @param {() => number} [o.now]
   * @param {{setTimeout: typeof setTimeout, clearTimeout: typeof clearTimeout}} [o.timers]
   */
  constructor({ recycler, pool, report = () => {}, now = Date.now, timers = globalThis }) {
    this.recycler = recycler;
    this.pool = pool;
    this.report = report;
    this.now = now;
    this.timers = timers;
    /** @type {Map<number, Promise<SlotResult>>} */
    this.pending = new Map();
    /** The reload running, if any: a second one waits for it rather than interleave. */
    this.reloading = null;
  }

  /** Recycle one slot now, or as soon as there is room. Throws NODESUP_ERR_USAGE for a slot that is not there. */
  recycleSlot(raw, reason = REASONS.MANUAL) {
    const slot = parseSlot(raw, this.pool.slots.length);
    const pending = this.pending.get(slot);
    if (pending) return pending;
    const trace = {};
    const p = this.recycler.recycleWhenRoom(slot, { reason, value: null, limit: null }, trace)
      .then((result) => this.#slotResult(slot, reason, result, trace))
      .finally(() => this.pending.delete(slot));
    this.pending.set(slot, p);
    return p;
  }

  /**
   * Rolling restart of every slot, at most maxConcurrent at a time, stopping at the first failure.
   * `onStart` hears how many workers and how many at a time; `onSlot` each slot as it finishes, so
   * a person (or a deploy script) sees the reload move rather than wait for its end. `by` says who
   * asked (`control`, `SIGHUP`). Resolves with the reload's document, also put on the event stream
   * as the `reload` event.
   */
  reload({ onSlot = null, onStart = null, by = 'control' } = {}) {
    const before = this.reloading;
    const run = (async () => {
      await before?.catch(() => {});
      return this.#reload({ onSlot, onStart, by });
    })();
    this.reloading = run;
    const clear = () => { if (this.reloading === run) this.reloading = null; };
    run.then(clear, clear);
    return run;
  }

  async #reload({ onSlot, onStart, by }) {
    const startedAt = this.now();
    const slots = this.pool.slots.map((s) => s.slot);
    const maxConcurrent = this.recycler.config.recycle.maxConcurrent;
    onStart?.({ workers: slots.length, maxConcurrent, by });
    const queue = [...slots];
    const results = [];
    let failedAt = null;
    const lane = async () => {
      while (queue.length && failedAt === null && !this.recycler.stopping) {
        // Wait for room here, not inside the recycler, so that a failure elsewhere while this lane
        // waited starts nothing new; the next slot is looked at again after each wait.
        const slot = queue[0];
        if (!this.recycler.hasRoom(slot)) {
          await EventEmitter.once(this.recycler, 'freed');
          continue;
        }
        queue.shift();
        const r = await this.recycleSlot(slot, REASONS.RELOAD);
        results.push(r);
        // A start cut short by a stop is not the new code's failure: the stop ends the reload.
        if (r.result === OUT.FAILED && r.failure?.why !== 'cancelled') failedAt ??= r.slot;
        onSlot?.(r);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(maxConcurrent, slots.length)) }, lane));

    const reloaded = results.filter((r) => r.result === OUT.RECYCLED).length;
    const result = reloaded === slots.length ? RELOAD_RESULTS.OK : reloaded === 0 ? RELOAD_RESULTS.FAILED : RELOAD_RESULTS.PARTIAL;
    const stopped = this.recycler.stopping;
    const pinned = result === RELOAD_RESULTS.OK ? (this.pool.unpin(), null) : stopped ? null : this.pool.pinServing();
    const doc = {
      result, by, workers: slots.length, maxConcurrent, reloaded, oldCode: slots.length - reloaded,
      serving: this.pool.serving().length,
      stoppedAt: failedAt,
      stoppedBy: failedAt !== null ? 'failure' : stopped && result !== RELOAD_RESULTS.OK ? 'stop' : null,
      notStarted: queue,
      durationMs: this.now() - startedAt,
      pinned,
      results,
    };
    this.report(result === RELOAD_RESULTS.OK ? 'info' : 'warn', { event: EVENTS.RELOAD, ...doc });
    return doc;
  }

  async #slotResult(slot, reason, result, { old = null, next = null }) {
    /** @type {SlotResult} */
    const r = { slot, reason, result, oldPid: old?.pid ?? null, newPid: next?.pid ?? null };
    if (next?.readyAt != null) r.readyMs = next.readyAt - next.startedAt;
    if (result === OUT.RECYCLED && old) {
      r.drainedMs = old.exitedAt != null && old.drainStartedAt != null ? old.exitedAt - old.drainStartedAt : null;
      if (old.forced) Object.assign(r, { forced: true }, old.heldBy ? { heldBy: old.heldBy } : {});
    }
    if (result === OUT.FAILED && next) r.failure = await this.#whyNotReady(next);
    if (result === OUT.SKIPPED) r.failure = { why: this.recycler.stopping ? 'stopping' : 'no-ready-worker' };
    return r;
  }

  // The new worker was not ready: it exited first (its code or signal), or it was not ready within
  // readyTimeout, or a stop began. What it wrote to stderr says why, usually.
  async #whyNotReady(next) {
    if (next.outputDone) {
      let timer;
      await Promise.race([next.outputDone, new Promise((r) => { timer = this.timers.setTimeout(r, OUTPUT_WAIT_MS); })]);
      this.timers.clearTimeout(timer);
    }
    if (this.recycler.stopping) return { why: 'cancelled' };
    const stderr = tailLines(next.stderrTail ?? '');
    // A replacement that exited by itself was never drained: it has no retirement of its own.
    if (next.retiring === null && next.exitStatus) return { why: 'exited', code: next.exitStatus.code, signal: next.exitStatus.signal, stderr };
    return { why: 'timeout', readyTimeoutMs: this.recycler.config.recycle.readyTimeout, stderr };
  }
}

/** The last lines a worker wrote to stderr, without a line cut by the tail's bound or trailing blanks. */
export function tailLines(tail) {
  const lines = tail.split('\n');
  if (tail.length >= STDERR_TAIL_BYTES) lines.shift();
  while (lines.length && lines.at(-1).trim() === '') lines.pop();
  return lines.slice(-STDERR_LINES);
}
