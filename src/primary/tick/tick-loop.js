// When the poll ticks run: one after another (never two at once), each group of slots once a poll
// interval, with ±10 % jitter. A poll period drifting in lockstep against a periodic workload (a
// 4 s GC sawtooth) keeps landing on the same phase and turns the sawtooth into a fake trend.
// The group size follows how long the ticks wait for their replies (group-size.js); it changes
// only between rounds, so no slot is skipped or polled twice in one.
import { pollGroups, newGroupSize, nextGroupSize } from './group-size.js';

export class TickLoop {
  /**
   * @param {object} o
   * @param {(group:{index:number, of:number}) => Promise<number|null>} o.run  one tick of one group; resolves with how long its poll waited (ms), null if it polled no one
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
    this.groupSize = newGroupSize();
    this.slowest = null;
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

  /** How many slots a tick polls at most now. */
  get size() {
    return this.groupSize.size;
  }

  #schedule() {
    if (this.stopped) return;
    const { pollInterval, slots } = this.settings();
    const of = pollGroups(slots, this.groupSize.size);
    const delay = (pollInterval / of) * (0.9 + 0.2 * this.random());
    this.timer = this.timers.setTimeout(() => {
      this.group = (this.group + 1) % of;
      const index = this.group;
      this.run({ index, of })
        .then((ms) => ms ?? null, (err) => { this.onError(err); return null; })
        .then((ms) => this.#heard(ms, index === of - 1, slots))
        .finally(() => this.#schedule());
    }, delay);
  }

  // A failed tick tells nothing of the round trip; the round still ends with its last group.
  #heard(ms, roundOver, slots) {
    if (ms !== null) this.slowest = Math.max(this.slowest ?? 0, ms);
    if (!roundOver) return;
    const next = nextGroupSize(this.groupSize, this.slowest, slots);
    this.slowest = null;
    if (next.size !== this.groupSize.size) this.group = -1;
    this.groupSize = next;
  }
}
