// Recycles people ask for: `nodesup recycle <slot>` and `nodesup reload` (the control socket, the
// status screen's keys, SIGHUP). They queue for the recycler's room rather than exceed
// maxConcurrent, and a second ask for a slot already queued gets the first one's answer.
import { REASONS, RECYCLE_OUTCOMES } from '../../constants.js';
import { parseSlot } from '../../slot.js';

export class ManualRecycles {
  /**
   * @param {object} o
   * @param {import('./recycler.js').Recycler} o.recycler
   * @param {import('../lifecycle/pool.js').Pool} o.pool  how many slots there are
   */
  constructor({ recycler, pool }) {
    this.recycler = recycler;
    this.pool = pool;
    /** @type {Map<number, Promise<{slot:number, reason:string, result:string}>>} */
    this.pending = new Map();
  }

  /** Recycle one slot now, or as soon as there is room. Throws NODESUP_ERR_USAGE for a slot that is not there. */
  recycleSlot(raw, reason = REASONS.MANUAL) {
    const slot = parseSlot(raw, this.pool.slots.length);
    const pending = this.pending.get(slot);
    if (pending) return pending;
    const p = this.recycler.recycleWhenRoom(slot, { reason, value: null, limit: null })
      .then((result) => ({ slot, reason, result }))
      .finally(() => this.pending.delete(slot));
    this.pending.set(slot, p);
    return p;
  }

  /**
   * Rolling restart of every slot, at most maxConcurrent at a time; `onSlot` hears each slot as it
   * finishes, so a person (or a deploy script) sees the reload move rather than wait for its end.
   */
  async reload({ onSlot = null } = {}) {
    const queue = this.pool.slots.map((s) => s.slot);
    const results = [];
    const lanes = Array.from({ length: this.recycler.config.recycle.maxConcurrent }, async () => {
      while (queue.length && !this.recycler.stopping) {
        const r = await this.recycleSlot(queue.shift(), REASONS.RELOAD);
        results.push(r);
        onSlot?.(r);
      }
    });
    await Promise.all(lanes);
    return { reloaded: results.filter((r) => r.result === RECYCLE_OUTCOMES.RECYCLED).length, results };
  }
}
