// The one owner of confirmation GCs: the decision asks for a point of a worker's heap after a full
// GC (and its retained sites); this asks the agent, once at a time per worker, and hands the point
// to the policy as an outcome (core/policy/outcomes.js). It keeps nothing of a worker but that one is asked.
import { KIND } from '../../protocol.js';
import { OUTCOME } from '../../core/policy/outcomes.js';

const TIMEOUT_MS = 10_000; // a full GC of a large heap plus a profile; a worker that takes longer is not blocked on

export class HeapProber {
  /** @param {{pool: import('../lifecycle/pool.js').Pool, inbox: {push:(o:object) => void}}} o */
  constructor({ pool, inbox }) {
    this.pool = pool;
    this.inbox = inbox;
    this.asking = new WeakSet();
  }

  /**
   * Take a point of rec (with its sites when `profile`, its Buffer sites when `buffers`), or end its
   * suspicion (`point` false), or (`start`) have it start the sampling profiler now: it fills
   * fast, and its recycle will read it.
   */
  async probe(rec, { point, profile, buffers = false, start = false, reuseMs = 0 }) {
    if (this.asking.has(rec)) return;
    this.asking.add(rec);
    try {
      if (start) {
        await this.pool.request(rec, KIND.SITES, { start: true }, TIMEOUT_MS);
        return;
      }
      // A full GC the worker ran by itself within reuseMs serves: no forced GC then.
      const r = await this.pool.request(rec, KIND.CONFIRM, { point, profile, buffers, reuseMs }, TIMEOUT_MS);
      if (!point || !r || typeof r.heapAfter !== 'number') return;
      this.inbox.push({
        type: OUTCOME.POINT, id: rec.id,
        point: {
          at: r.at, heapAfter: r.heapAfter, forced: r.forced, pauseMs: r.pauseMs ?? null, sites: r.sites ?? null, profiler: r.profiler ?? null,
          externalAfter: r.externalAfter ?? null, buffers: r.buffers ?? null,
        },
      });
    } finally {
      this.asking.delete(rec);
    }
  }
}
