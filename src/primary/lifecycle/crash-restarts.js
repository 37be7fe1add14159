// A worker that exits without being asked to is restarted into its slot after a backoff that grows
// with the slot's consecutive crashes; too many crashes within the crash window, across the slots,
// and the supervisor gives up (exit 1, the app's last error output with it). The only owner of
// the restart timers and the crash counts.
import { EventEmitter } from 'node:events';
import { EVENTS, SPAWN_CAUSES } from '../../constants.js';
import { NodesupError } from '../../errors.js';
import { restartDelay, crashesInWindow, shouldGiveUp } from '../../core/backoff.js';

// The app's last error output a give-up carries: enough to show the stack of the crash.
const TAIL_LINES = 20;

export class CrashRestarts extends EventEmitter {
  /**
   * @param {object} o
   * @param {import('./pool.js').Pool} o.pool  forks the restart; knows whether the slot is served
   * @param {(level:string, fields:object, msg?:string) => void} o.report
   * @param {() => number} [o.now]
   * @param {{setTimeout: typeof setTimeout, clearTimeout: typeof clearTimeout}} [o.timers]
   * Emits 'give-up' (NodesupError NODESUP_ERR_CRASH_LOOP with `appError`) once crashes are too many.
   */
  constructor({ pool, report, now = Date.now, timers = globalThis }) {
    super();
    this.pool = pool;
    this.report = report;
    this.now = now;
    this.timers = timers;
    this.crashTimes = [];
    /** @type {Map<number, {consecutive:number, timer:any}>} */
    this.slots = new Map();
    this.stopped = false;
  }

  /** The restart settings from now on. */
  configure(config) {
    this.restart = config.restart;
    return this;
  }

  #slot(n) {
    let s = this.slots.get(n);
    if (!s) this.slots.set(n, (s = { consecutive: 0, timer: null }));
    return s;
  }

  /** The slot's current worker became ready: its crash streak ends. */
  ready(slot) {
    this.#slot(slot).consecutive = 0;
  }

  /** The slot's current worker exited unasked, with `stderrTail` its last error output. */
  crashed(slot, stderrTail = '') {
    if (this.stopped) return;
    const now = this.now();
    this.crashTimes = crashesInWindow(this.crashTimes, now, this.restart.crashWindow);
    this.crashTimes.push(now);
    const s = this.#slot(slot);
    s.consecutive++;
    if (shouldGiveUp(this.crashTimes.length, this.restart)) {
      const err = new NodesupError('NODESUP_ERR_CRASH_LOOP', `workers crashed ${this.crashTimes.length} times within ${this.restart.crashWindow} ms; giving up`);
      err.appError = stderrTail.trim().split('\n').slice(-TAIL_LINES).join('\n');
      this.emit('give-up', err);
      return;
    }
    const delayMs = restartDelay(s.consecutive, this.restart);
    this.report('warn', { event: EVENTS.WORKER_RESTART, slot, delayMs, crashesInWindow: this.crashTimes.length });
    this.timers.clearTimeout(s.timer);
    s.timer = this.timers.setTimeout(() => {
      s.timer = null;
      if (!this.stopped && !this.pool.currentOf(slot)) this.pool.spawn(slot, SPAWN_CAUSES.RESTART);
    }, delayMs);
  }

  /** Forget a slot that is gone (a scale-down): no restart is pending for it. */
  forget(slot) {
    this.timers.clearTimeout(this.slots.get(slot)?.timer);
    this.slots.delete(slot);
  }

  /** No restart from now on. */
  stop() {
    this.stopped = true;
    for (const s of this.slots.values()) this.timers.clearTimeout(s.timer);
  }
}
