// The drain, the primary's half: how every planned exit ends a worker, whether a recycle replaced
// it, a stop ends everything, or a smaller worker count drops its slot. The worker is marked
// draining and disconnected (its listening sockets close, in-flight requests finish; the agent's
// half is src/worker/drain/drain.js), and if it outlives recycle.killTimeout its agent is asked
// what held it and its whole process tree gets SIGTERM, then SIGKILL KILL_GRACE_MS later.
import { KIND } from '../../protocol.js';
import { RETIRE, STATES } from '../../constants.js';
import { treeOf, rememberTree, wholeTreeNow, signalAll, stillAlive } from '../lifecycle/kill-tree.js';

/** SIGTERM → SIGKILL grace after killTimeout. */
export const KILL_GRACE_MS = 2000;
// A worker whose loop is blocked does not answer what held it: the kill goes ahead.
const HELD_TIMEOUT_MS = 1000;
// Recent drain times (drain → exit) kept: a predicted crossing is met that much early.
const DRAINS = 5;

export class Drain {
  /**
   * @param {object} o
   * @param {import('../lifecycle/pool.js').Pool} o.pool  the one writer of the workers' records
   * @param {() => number} [o.now]
   * @param {{setTimeout: typeof setTimeout, clearTimeout: typeof clearTimeout}} [o.timers]
   */
  constructor({ pool, now = Date.now, timers = globalThis }) {
    this.pool = pool;
    this.now = now;
    this.timers = timers;
    this.killTimeout = 0;
    /** Reaps in progress: a stop waits for them. */
    this.reaping = new Set();
    this.drains = [];
  }

  /** The settings drains use from now on. */
  configure(config) {
    this.killTimeout = config.recycle.killTimeout;
  }

  /** The slowest of the recent drains (ms), 0 before the first. */
  slowestMs() {
    return this.drains.length ? Math.max(...this.drains) : 0;
  }

  /**
   * Drain rec and wait for its exit; its tree is killed if it outlives killTimeout. `snapshot`
   * (drain-snapshots.js): it writes a heap snapshot before it leaves, and has that much longer.
   */
  async retire(rec, { reason, decidedAt, snapshot = null }) {
    if (rec.state === STATES.EXITED) return rec.exited;
    let extraMs = 0;
    if (rec.state === STATES.READY || rec.state === STATES.SPAWNING) {
      this.pool.transition(rec, STATES.DRAINING, { retiring: { reason, decidedAt }, drainStartedAt: this.now() }); // READY|SPAWNING -> DRAINING
      // Remember the tree before the drain: once the worker exits its children are re-parented
      // and the next poll tick, which would have listed them, may never come.
      this.pool.rememberTree(rec, wholeTreeNow(rec));
      this.pool.disconnect(rec, { snapshot });
      extraMs = snapshot?.timeoutMs ?? 0;
    } else if (rec.state === STATES.KILLING) {
      this.pool.transition(rec, STATES.KILLING, { retiring: { reason, decidedAt } });
    }
    // The agent says what held the worker (open requests, upgraded sockets) before it is killed.
    const timer = this.timers.setTimeout(() => askHeldBy(this.pool, rec).then((heldBy) => this.forceKill(rec, { heldBy })), this.killTimeout + extraMs);
    const info = await rec.exited;
    this.timers.clearTimeout(timer);
    // A drain that wrote a snapshot is not a drain time a predicted crossing should plan for.
    if (!rec.forced && rec.drainStartedAt !== null && !extraMs) {
      this.drains.push(this.now() - rec.drainStartedAt);
      if (this.drains.length > DRAINS) this.drains.shift();
    }
    return info;
  }

  /** SIGTERM rec and everything below it now, SIGKILL what is left KILL_GRACE_MS later. */
  async forceKill(rec, { notReady = false, heldBy = null } = {}) {
    if (rec.state === STATES.EXITED) return;
    this.pool.transition(rec, STATES.KILLING, { forced: true, ...(notReady ? { notReady } : {}), ...(heldBy ? { heldBy } : {}) }); // * -> KILLING
    const now = rememberTree(await treeOf(rec.pid));
    const known = new Map([...rec.tree, ...now].map((p) => [p.pid, p]));
    this.reap([...known.values()]);
  }

  /** SIGTERM the remembered processes, SIGKILL the survivors after a grace; tracked so stop waits. */
  reap(remembered) {
    const alive = stillAlive(remembered);
    if (!alive.length) return;
    signalAll(alive, 'SIGTERM');
    const done = new Promise((resolve) => {
      this.timers.setTimeout(() => {
        signalAll(stillAlive(remembered), 'SIGKILL');
        resolve();
      }, KILL_GRACE_MS);
    });
    this.reaping.add(done);
    done.then(() => this.reaping.delete(done));
  }

  /**
   * A stop's drain: every worker retired at once (allSettled: one that cannot be drained must not
   * leave the others undrained), again until none is left, since a recycle already past its checks
   * may still fork a replacement; then the children left behind are reaped. `onFailed` hears each
   * drain that failed, and what is left is forced. `snapshotOf` (rec) gives the heap snapshot a
   * serving worker writes as it leaves, or null.
   */
  async all(decidedAt, onFailed, snapshotOf = null) {
    const leaving = (rec) => (snapshotOf && rec.state === STATES.READY ? snapshotOf(rec) : null);
    while (this.pool.live.size) {
      const retired = await Promise.allSettled(this.pool.records().map((rec) => this.retire(rec, { reason: RETIRE.STOP, decidedAt, snapshot: leaving(rec) })));
      for (const r of retired) if (r.status === 'rejected') onFailed(r.reason);
      if (retired.some((r) => r.status === 'rejected')) this.forceAll();
    }
    await Promise.all(this.reaping);
  }

  /** Force every live worker now (a second stop signal). */
  forceAll() {
    for (const rec of this.pool.records()) this.forceKill(rec);
  }
}

/** What holds rec open (its open requests, upgraded sockets), or null when its agent does not answer in time. */
export function askHeldBy(pool, rec) {
  return pool.request(rec, KIND.HELD, {}, HELD_TIMEOUT_MS).catch(() => null);
}
