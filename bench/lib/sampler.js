// Samples, every `intervalMs`, the tree RSS of every child of a supervisor process (nodesup's
// primary, PM2's God daemon): the workers, whoever forked them. Per worker pid it keeps when it
// was first and last seen, its peak, and when it first crossed `limit`. This is the bench's own
// measurement, independent of what the supervisor reports.
import { childrenOf, treeRss, rss } from './proc.js';

export class TreeSampler {
  /** @param {{parentPid:number, limit:number, intervalMs?:number, onSeen?:(pid:number)=>void, onGone?:(pid:number)=>void}} o */
  constructor({ parentPid, limit, intervalMs = 100, onSeen = () => {}, onGone = () => {} }) {
    this.onSeen = onSeen;
    this.onGone = onGone;
    this.parentPid = parentPid;
    this.limit = limit;
    this.intervalMs = intervalMs;
    /** @type {Map<number, {pid:number, firstSeen:number, lastSeen:number, goneAt:number|null, peak:number, crossedAt:number|null, crossedValue:number|null}>} */
    this.workers = new Map();
    this.parentPeakRss = 0;
    this.ticks = 0;
    this.lateTicks = 0; // ticks that came more than one interval late: the sampler's own resolution
  }

  start() {
    this.last = Date.now();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.tick();
    return this;
  }

  stop() {
    clearInterval(this.timer);
    this.tick();
  }

  tick() {
    const now = Date.now();
    if (now - this.last > 2 * this.intervalMs) this.lateTicks++;
    this.last = now;
    this.ticks++;
    const seen = new Set();
    for (const pid of childrenOf(this.parentPid)) {
      const value = treeRss(pid);
      if (value === null) continue;
      seen.add(pid);
      let w = this.workers.get(pid);
      if (!w) {
        w = { pid, firstSeen: now, lastSeen: now, goneAt: null, peak: 0, crossedAt: null, crossedValue: null };
        this.workers.set(pid, w);
        this.onSeen(pid);
      }
      w.lastSeen = now;
      if (value > w.peak) w.peak = value;
      if (w.crossedAt === null && this.limit !== null && value > this.limit) {
        w.crossedAt = now;
        w.crossedValue = value;
      }
    }
    for (const w of this.workers.values()) {
      if (w.goneAt === null && !seen.has(w.pid)) {
        w.goneAt = now;
        this.onGone(w.pid);
      }
    }
    const p = rss(this.parentPid);
    if (p !== null && p > this.parentPeakRss) this.parentPeakRss = p;
  }

  /** Every worker seen, in order of first appearance. */
  list() {
    return [...this.workers.values()].sort((a, b) => a.firstSeen - b.firstSeen);
  }
}
