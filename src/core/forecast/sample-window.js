// A bounded, time-ordered history of one worker's samples. The policies and the trend maths read
// it; the poller pushes into it. Bounded by age and by count, so a long-lived worker costs the same
// memory as a young one.

/** @typedef {import('../../types.js').Sample} Sample */

const readers = new Map();

/**
 * A function reading one field of a sample. A loop reading `s[field]` with a name that changes
 * from call to call is a megamorphic keyed load in V8; a reader per name is a named load its own
 * inline cache keeps fast (at 128 idle workers it was a quarter of the decide step's time).
 * @param {string} field
 * @returns {(s: object) => any}
 */
export function readerOf(field) {
  let read = readers.get(field);
  if (!read) {
    // eslint-disable-next-line no-new-func -- a field name of the Sample, checked to be an identifier
    read = /^[A-Za-z_$][\w$]*$/.test(field) ? new Function('s', `return s.${field};`) : (s) => s[field];
    readers.set(field, read);
  }
  return read;
}

export class SampleWindow {
  /** @param {{maxAgeMs:number, maxSamples?:number}} opts */
  constructor({ maxAgeMs, maxSamples = 4096 }) {
    this.maxAgeMs = maxAgeMs;
    this.maxSamples = maxSamples;
    /** @type {Sample[]} */
    this.samples = [];
  }

  /** Add the newest sample and drop what fell out of the window. */
  push(sample) {
    const s = this.samples;
    s.push(sample);
    const oldest = sample.t - this.maxAgeMs;
    // shift(), not splice(0, n): V8 moves the array's start in place for a shift, where a splice
    // copies the whole window; a full window drops one sample a poll (at 128 idle workers the
    // splice was 3 % of the primary's busy time).
    while (s.length > 1 && (s[0].t < oldest || s.length > this.maxSamples)) s.shift();
  }

  /** The newest sample, or null. */
  last() {
    return this.samples.length ? this.samples[this.samples.length - 1] : null;
  }

  /** Index of the first sample with t >= since (samples.length when none): a binary search, as
   * the decision asks this of a 10-minute window for every worker on every tick. */
  indexSince(since) {
    const s = this.samples;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid].t < since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Samples with t >= since, oldest first (a new array). */
  since(since) {
    return this.samples.slice(this.indexSince(since));
  }

  /** Non-null values of one field, oldest first, as [t, value] pairs. */
  series(field, since = -Infinity) {
    const out = [];
    const s = this.samples;
    const read = readerOf(field);
    for (let i = this.indexSince(since); i < s.length; i++) {
      const v = read(s[i]);
      if (v !== null && v !== undefined) out.push([s[i].t, v]);
    }
    return out;
  }

  /** Change per ms of a cumulative field (gcMs, requests) since `since`, or null when unknown. */
  rateOf(field, since) {
    const s = this.samples;
    let first = null;
    for (let i = this.indexSince(since); i < s.length; i++) if (s[i][field] != null) { first = s[i]; break; }
    const last = this.last();
    if (!first || !last || last[field] == null || last.t <= first.t || last[field] < first[field]) return null;
    return (last[field] - first[field]) / (last.t - first.t);
  }

  /** Time span covered, ms (0 with fewer than two samples). */
  span() {
    const s = this.samples;
    return s.length < 2 ? 0 : s[s.length - 1].t - s[0].t;
  }

  get size() {
    return this.samples.length;
  }
}
