// A bounded ring of timed points in typed-array columns: one Float64Array of times and one
// Float32Array per series. Float32 keeps 24 bits of mantissa, under 0.01 % of a value, which no
// chart row can show, at half the bytes; NaN stands for unknown and comes back out as null.

/** A ring of `capacity` points with the named float columns. */
export class SeriesRing {
  constructor(capacity, columns) {
    this.capacity = capacity;
    this.columns = columns;
    this.t = new Float64Array(capacity);
    this.data = columns.map(() => new Float32Array(capacity));
    this.start = 0;
    this.length = 0;
  }

  /** Append a point; `values` in column order, null or undefined for unknown. Drops the oldest when full. */
  push(t, values) {
    const i = (this.start + this.length) % this.capacity;
    if (this.length === this.capacity) this.start = (this.start + 1) % this.capacity;
    else this.length++;
    this.t[i] = t;
    for (let c = 0; c < this.data.length; c++) this.data[c][i] = values[c] ?? NaN;
  }

  /** Time of the k-th point, oldest first. */
  timeAt(k) {
    return this.t[(this.start + k) % this.capacity];
  }

  /** Column c of the k-th point, oldest first; NaN when unknown. */
  valueAt(k, c) {
    return this.data[c][(this.start + k) % this.capacity];
  }

  /** Index (oldest first) of the first point at or after t: times only grow, so a binary search. */
  indexFrom(t) {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.timeAt(mid) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Time of the oldest point, or null. */
  first() {
    return this.length ? this.timeAt(0) : null;
  }

  /** Every point with from ≤ t ≤ to as plain columns: { t: [], <column>: [] }, unknown as null. */
  slice(from = -Infinity, to = Infinity) {
    const out = { t: [] };
    for (const name of this.columns) out[name] = [];
    for (let k = 0; k < this.length; k++) {
      const t = this.timeAt(k);
      if (t < from || t > to) continue;
      out.t.push(t);
      this.columns.forEach((name, c) => out[name].push(finite(this.valueAt(k, c))));
    }
    return out;
  }

  /** Bytes held by the columns. */
  get bytes() {
    return this.t.byteLength + this.data.reduce((n, a) => n + a.byteLength, 0);
  }
}

const finite = (v) => (Number.isFinite(v) ? v : null);

/**
 * Points from `sources` (rings or plain {t, columns} objects) bucketed into `n` equal spans of
 * [from, to): each bucket keeps the maximum of each column (a chart must show the peak that met
 * the limit), null when it holds no point. Returns { t: bucket starts, <column>: [] }.
 */
export function bucketMax(sources, columns, from, to, n) {
  const step = (to - from) / n;
  const out = { t: Array.from({ length: n }, (_, i) => from + i * step) };
  const cols = columns.map((name) => (out[name] = new Array(n).fill(null)));
  const put = (col, i, v) => {
    if (Number.isFinite(v) && (col[i] === null || v > col[i])) col[i] = v;
  };
  for (const src of sources) {
    if (src instanceof SeriesRing) {
      const idx = columns.map((name) => src.columns.indexOf(name));
      for (let k = src.indexFrom(from); k < src.length; k++) {
        const t = src.timeAt(k);
        if (t >= to) break;
        const i = Math.min(n - 1, Math.floor((t - from) / step));
        for (let c = 0; c < cols.length; c++) if (idx[c] >= 0) put(cols[c], i, src.valueAt(k, idx[c]));
      }
    } else if (src && src.t >= from && src.t < to) {
      const i = Math.min(n - 1, Math.floor((src.t - from) / step));
      for (let c = 0; c < cols.length; c++) put(cols[c], i, src[columns[c]]);
    }
  }
  return out;
}
