// The one owner of confirmation GCs: the decision asks for a point of a worker's heap after a full
// GC (and its retained sites); this asks the agent, once at a time per worker, and keeps the points.
import { KIND } from '../protocol.js';
import { CONFIRM } from '../core/heap-confirm.js';

const TIMEOUT_MS = 10_000; // a full GC of a large heap plus a profile; a worker that takes longer is not blocked on
const KEEP = 16; // points kept per worker: the verdict reads eight, the rest are history for inspect

export class HeapProber {
  /** @param {{pool: import('./pool.js').Pool}} o */
  constructor({ pool }) {
    this.pool = pool;
    /** @type {WeakMap<object, import('../core/heap-confirm.js').ConfirmPoint[]>} */
    this.points = new WeakMap();
    this.inFlight = new WeakSet();
  }

  /** The points taken of h, oldest first. */
  pointsOf(h) {
    return this.points.get(h) ?? [];
  }

  /** Take a point of h (with its sites when `profile`), or end its suspicion (`point` false). */
  async probe(h, { point, profile, buffers = false }) {
    if (this.inFlight.has(h)) return;
    this.inFlight.add(h);
    try {
      // A full GC the worker ran by itself within a spacing serves: no forced GC then.
      const r = await this.pool.request(h, KIND.CONFIRM, { point, profile, buffers, reuseMs: CONFIRM.spacingMs / 2 }, TIMEOUT_MS);
      if (!point || !r || typeof r.heapAfter !== 'number') return;
      const list = this.points.get(h) ?? [];
      list.push({ at: r.at, heapAfter: r.heapAfter, forced: r.forced, pauseMs: r.pauseMs ?? null, sites: r.sites ?? null, profiler: r.profiler ?? null, externalAfter: r.externalAfter ?? null, buffers: r.buffers ?? null });
      if (list.length > KEEP) list.shift();
      this.points.set(h, list);
    } finally {
      this.inFlight.delete(h);
    }
  }
}
