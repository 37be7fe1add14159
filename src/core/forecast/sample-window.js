// A bounded, time-ordered history of one worker's samples. The policies and the trend maths read
// it; the poller pushes into it. Bounded by age and by count, so a long-lived worker costs the same
// memory as a young one.

import { readerOf } from '../../sample/field-reader.js';
import { FIELDS } from '../../sample/fields.js';

/** @typedef {import('../../types.js').Sample} Sample */

const numberOf = (v) => (v === null || v === undefined ? NaN : v);
// The fields that are tables of counts ({TCPSocketWrap: 12, Timeout: 40}): every reply brings a
// new object, nearly always equal to the one before it.
const TABLES = FIELDS.filter((f) => f.unit.startsWith('count by ')).map((f) => f.name);

export class SampleWindow {
  /** @param {{maxAgeMs:number, maxSamples?:number}} opts */
  constructor({ maxAgeMs, maxSamples = 4096 }) {
    this.maxAgeMs = maxAgeMs;
    this.maxSamples = maxSamples;
    /** @type {Sample[]} */
    this.samples = [];
    /** @type {Map<string, {read: (s: object) => any, values: number[]}>} the columns asked for so far */
    this.columns = new Map();
  }

  /** Add the newest sample and drop what fell out of the window. */
  push(sample) {
    const s = this.samples;
    if (s.length) shareTables(sample, s[s.length - 1]);
    s.push(sample);
    for (const c of this.columns.values()) c.values.push(numberOf(c.read(sample)));
    const oldest = sample.t - this.maxAgeMs;
    // shift(), not splice(0, n): V8 moves the array's start in place for a shift, where a splice
    // copies the whole window; a full window drops one sample a poll (at 128 idle workers the
    // splice was 3 % of the primary's busy time).
    while (s.length > 1 && (s[0].t < oldest || s.length > this.maxSamples)) {
      s.shift();
      for (const c of this.columns.values()) c.values.shift();
    }
  }

  /**
   * One numeric field of every sample, index for index with `samples`, NaN where a sample has no
   * value. Built at the first ask and kept in step from then on: the trend maths scan a field over
   * minutes of samples for every worker on every tick, and a loop over an array of numbers is
   * several times cheaper than a read of that field from each sample object (bench/tick-cost.js).
   * @param {string} field
   * @returns {number[]}
   */
  column(field) {
    let c = this.columns.get(field);
    if (!c) {
      const read = readerOf(field);
      c = { read, values: this.samples.map((x) => numberOf(read(x))) };
      this.columns.set(field, c);
    }
    return c.values;
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
    // The first value is found in a sample or two: no column is kept for it.
    const s = this.samples;
    const read = readerOf(field);
    let first = null;
    for (let i = this.indexSince(since); i < s.length; i++) if (read(s[i]) != null) { first = s[i]; break; }
    const last = this.last();
    if (!first || !last || read(last) == null || last.t <= first.t || read(last) < read(first)) return null;
    return (read(last) - read(first)) / (last.t - first.t);
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

// A table equal to the previous sample's is kept as that same object (the sample is changed in
// place): a window holds minutes of samples, and a copy of the same few counts in each was ~50 of
// the ~540 bytes a sample takes (7 % of the windows' heap, 3.5 MiB at 128 workers: bench/RESULTS.md).
// Flat and allocation-free, as it runs on every poll (config-diff.js's deep comparison is not).
function shareTables(sample, prev) {
  for (const name of TABLES) {
    const table = sample[name];
    const before = prev[name];
    if (table && before && table !== before && sameCounts(table, before)) sample[name] = before;
  }
}

function sameCounts(a, b) {
  let keys = 0;
  for (const k in a) {
    if (a[k] !== b[k]) return false;
    keys++;
  }
  for (const k in b) keys--;
  return keys === 0;
}
