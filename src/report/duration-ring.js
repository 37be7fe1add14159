// The last N durations and their percentiles: how long the primary's own poll tick takes.

export class DurationRing {
  constructor(size) {
    this.values = new Float64Array(size);
    this.count = 0;
  }

  /** Add one duration, ms. */
  record(ms) {
    this.values[this.count % this.values.length] = ms;
    this.count++;
  }

  /** {count, lastMs, p50Ms, p99Ms, maxMs} over the retained durations; nulls before the first. */
  summary() {
    const n = Math.min(this.count, this.values.length);
    if (!n) return { count: 0, lastMs: null, p50Ms: null, p99Ms: null, maxMs: null };
    const sorted = Array.from(this.values.subarray(0, n)).sort((a, b) => a - b);
    const at = (q) => sorted[Math.min(n - 1, Math.floor(q * n))];
    const r = (x) => Math.round(x * 1000) / 1000;
    return { count: this.count, lastMs: r(this.values[(this.count - 1) % this.values.length]), p50Ms: r(at(0.5)), p99Ms: r(at(0.99)), maxMs: r(sorted[n - 1]) };
  }
}
