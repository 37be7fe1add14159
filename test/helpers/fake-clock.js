// A clock and timers the test moves by hand: time passes only in advance(), and every timer due by
// then runs in order, with the promise jobs it starts settled before the next one.
import { setImmediate as turn } from 'node:timers/promises';

export class FakeClock {
  constructor(start = 1_000_000) {
    this.t = start;
    this.seq = 0;
    /** @type {Map<number, {at:number, fn:Function}>} */
    this.pending = new Map();
    this.now = () => this.t;
    this.setTimeout = (fn, ms = 0) => {
      const id = ++this.seq;
      this.pending.set(id, { at: this.t + Math.max(0, ms), fn });
      return id;
    };
    this.clearTimeout = (id) => { this.pending.delete(id); };
  }

  /** Let the promise jobs queued so far run (a turn of the real event loop, no time passes). */
  async settle() {
    for (let i = 0; i < 5; i++) await turn();
  }

  /** Move time forward by ms, running each timer due on the way. */
  async advance(ms) {
    const end = this.t + ms;
    for (;;) {
      await this.settle();
      let next = null;
      for (const [id, x] of this.pending) if (x.at <= end && (!next || x.at < next[1].at)) next = [id, x];
      if (!next) break;
      this.pending.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = end;
    await this.settle();
  }
}
