// Every worker exit, told once: the worker.exit event (planned or not, forced, how long it drained,
// the recycle it ended) and whether the kernel's OOM killer ended it, with the advice that follows.
// The one reader of the cgroup's OOM kill counter.
import { EVENTS, RETIRE } from '../../constants.js';
import { oomAdvice } from '../../core/policy/fit.js';
import { memoryOf } from '../../core/forecast/memory-of.js';

// Planned exits that are not recycles: a stop's, a scale-down's, a spare's.
const NOT_RECYCLES = new Set(Object.values(RETIRE));

export class ExitReport {
  /**
   * @param {object} o
   * @param {(level:string, fields:object, msg?:string) => void} o.report
   * @param {() => number|null} o.readOomKills  the cgroup's oom_kill count now, null where unknown
   * @param {number|null} o.cgroupLimit
   * @param {() => number} [o.now]
   */
  constructor({ report, readOomKills, cgroupLimit, now = Date.now }) {
    this.report = report;
    this.readOomKills = readOomKills;
    this.cgroupLimit = cgroupLimit;
    this.now = now;
    // The kernel's OOM kills seen so far in our cgroup: a rise at a worker's SIGKILL names the killer.
    this.oomKills = readOomKills();
  }

  /** The settings exits are judged against from now on. */
  configure(config) {
    this.config = config;
    return this;
  }

  /**
   * Report rec's exit. Returns whether it was planned (a drain we asked for).
   * @param {import('./pool.js').WorkerRecord} rec
   * @param {{code:number|null, signal:string|null}} info
   */
  exited(rec, { code, signal }) {
    const now = this.now();
    const planned = rec.retiring !== null;
    const fields = {
      event: EVENTS.WORKER_EXIT, slot: rec.slot, pid: rec.pid, code, signal, planned, forced: rec.forced,
      drainMs: rec.drainStartedAt ? now - rec.drainStartedAt : null,
    };
    // A recycle's exit carries its reason (and is counted as one); a stop's does not.
    if (planned && !NOT_RECYCLES.has(rec.retiring.reason)) Object.assign(fields, { reason: rec.retiring.reason, recycleMs: now - rec.retiring.decidedAt });
    if (rec.notReady) fields.notReady = true;
    // What the agent said held a forced worker (open requests, upgraded sockets), asked before the kill.
    if (rec.heldBy) fields.heldBy = rec.heldBy;
    const oomKill = this.#oomKilled(rec, signal);
    if (oomKill) fields.oomKill = true;
    // A drained worker leaves with code 0. One that died on its own mid-drain (an app whose timer
    // reads server.address() after the drain closed its server) cut its keep-alive sockets
    // without the drain's Connection: close and idle grace: the app's bug, told as a warning.
    const crashed = planned && !rec.forced && code !== null && code !== 0;
    if (crashed) fields.crashedInDrain = true;
    this.report(planned && !crashed ? 'info' : 'warn', fields);
    if (oomKill) {
      const { limits, workers } = this.config;
      const a = oomAdvice({ slot: rec.slot, lastRss: memoryOf(rec.window.last()), rssLimit: limits.rss, cgroupLimit: this.cgroupLimit, workers });
      this.report('warn', { event: EVENTS.ADVICE, pid: rec.pid, ...a });
    }
    return planned;
  }

  // A SIGKILL we did not send, while the cgroup's oom_kill counter rose: the kernel's OOM killer.
  // Each such exit takes one from the rise, so two workers killed at once are both named; any
  // other exit re-reads the counter, so a child's OOM kill is never pinned on a later worker.
  #oomKilled(rec, signal) {
    const now = this.readOomKills();
    if (now === null) return false;
    if (signal !== 'SIGKILL' || rec.forced || this.oomKills === null || now <= this.oomKills) {
      if (signal !== 'SIGKILL') this.oomKills = now;
      else this.oomKills ??= now;
      return false;
    }
    this.oomKills++;
    return true;
  }
}
