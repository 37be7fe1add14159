// When the poll ticks run: one after another (never two at once), each group of slots once a poll
// interval, with ±10 % jitter. A poll period drifting in lockstep against a periodic workload (a
// 4 s GC sawtooth) keeps landing on the same phase and turns the sawtooth into a fake trend.
import { pollGroups } from './tick.js';

export class TickLoop {
  /**
   * @param {object} o
   * @param {(group:{index:number, of:number}) => Promise<void>} o.run  one tick of one group
   * @param {() => {pollInterval:number, slots:number}} o.settings  read before each tick (a reload may change them)
   * @param {(err:Error) => void} o.onError  a tick that threw; the loop goes on
   * @param {() => number} [o.random]
   * @param {{setTimeout: typeof setTimeout, clearTimeout: typeof clearTimeout}} [o.timers]
   */
  constructor({ run, settings, onError, random = Math.random, timers = globalThis }) {
    this.run = run;
    this.settings = settings;
    this.onError = onError;
    this.random = random;
    this.timers = timers;
    this.group = -1;
    this.timer = null;
    this.stopped = false;
  }

  /** Schedule the first tick. */
  start() {
    this.#schedule();
  }

  /** No tick after this one; one running finishes. */
  stop() {
    this.stopped = true;
    this.timers.clearTimeout(this.timer);
  }

  #schedule() {
    if (this.stopped) return;
    const { pollInterval, slots } = this.settings();
    const of = pollGroups(slots);
    const delay = (pollInterval / of) * (0.9 + 0.2 * this.random());
    this.timer = this.timers.setTimeout(() => {
      this.group = (this.group + 1) % of;
      this.run({ index: this.group, of }).catch(this.onError).finally(() => this.#schedule());
    }, delay);
  }
}
