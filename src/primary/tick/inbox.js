// What the act step learned since the last tick (a GC run, a spare retired, a point taken), kept
// until the next tick folds it into the policy state. The recycler and the prober push; only the
// tick takes.

export class Inbox {
  #items = [];

  /** Keep one outcome for the next tick. */
  push(outcome) {
    this.#items.push(outcome);
  }

  /** Everything kept so far, oldest first; the inbox is empty after. */
  take() {
    const out = this.#items;
    this.#items = [];
    return out;
  }
}
