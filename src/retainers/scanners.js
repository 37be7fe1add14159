// Byte-level scanners for the three kinds of value a .heapsnapshot holds after its header: flat
// arrays of non-negative integers, nested integer arrays (trace_tree) and one array of strings.
// Each scanner keeps its state between chunks, so a value may straddle a chunk boundary.
// `scan(buf, i)` returns the index just past the closing `]`, or -1 when it wants the next chunk;
// it throws a plain Error with a short reason on any byte that does not belong (the reader codes it).

const COMMA = 44, CLOSE = 93, OPEN = 91, QUOTE = 34, BACKSLASH = 92, ZERO = 48, NINE = 57;
const isSpace = (c) => c === 32 || c === 10 || c === 13 || c === 9;

/** Integers into a typed array: fixed length (nodes, edges) or growing (locations). */
export class NumberArrayScanner {
  /** @param {Uint32Array} out @param {{ grow?: boolean, name: string }} opts */
  constructor(out, { grow = false, name }) {
    this.out = out;
    this.grow = grow;
    this.name = name;
    this.length = 0;
    this.cur = 0;
    this.inNumber = false;
  }

  push() {
    if (this.length === this.out.length) {
      if (!this.grow) throw new Error(`${this.name} holds more values than the header's count`);
      const bigger = new Uint32Array(Math.max(1024, this.out.length * 2));
      bigger.set(this.out);
      this.out = bigger;
    }
    // Past 2^32 a Uint32Array would wrap silently; a size that large is clamped instead.
    this.out[this.length++] = this.cur > 0xffffffff ? 0xffffffff : this.cur;
    this.cur = 0;
    this.inNumber = false;
  }

  /** @param {Buffer} buf @param {number} i */
  scan(buf, i) {
    const n = buf.length;
    for (; i < n; i++) {
      const c = buf[i];
      if (c >= ZERO && c <= NINE) {
        this.cur = this.cur * 10 + (c - ZERO);
        this.inNumber = true;
      } else if (c === COMMA) {
        if (!this.inNumber) throw new Error(`${this.name}: an empty value`);
        this.push();
      } else if (c === CLOSE) {
        if (this.inNumber) this.push();
        return i + 1;
      } else if (isSpace(c)) {
        // V8 puts a newline before the comma that ends each node and edge: `0,0\n,9,…`.
      } else {
        throw new Error(`${this.name}: unexpected byte 0x${c.toString(16)}`);
      }
    }
    return -1;
  }

  /** The values read, trimmed to their count. */
  values() {
    return this.length === this.out.length ? this.out : this.out.subarray(0, this.length);
  }
}

/** Skips an array of integers and nested arrays (trace_tree, samples) without keeping it. */
export class SkipScanner {
  constructor(name) {
    this.name = name;
    this.depth = 1;
  }

  /** @param {Buffer} buf @param {number} i */
  scan(buf, i) {
    for (const n = buf.length; i < n; i++) {
      const c = buf[i];
      if (c === OPEN) this.depth++;
      else if (c === CLOSE && --this.depth === 0) return i + 1;
      else if (c === QUOTE) throw new Error(`${this.name}: a string where numbers were expected`);
    }
    return -1;
  }
}

/**
 * The strings array. A string that straddles chunks is carried as bytes from its opening quote
 * and scanned again whole with the next chunk: UTF-8 is only decoded once a string is complete.
 */
export class StringArrayScanner {
  constructor() {
    /** @type {string[]} */
    this.strings = [];
    /** @type {Buffer | null} */
    this.carry = null;
  }

  /** @param {Buffer} chunk @param {number} i */
  scan(chunk, i) {
    let buf = chunk;
    // Where buf's index 0 falls in chunk: a carried string's bytes come first, before the chunk's.
    let shift = 0;
    if (this.carry) {
      buf = Buffer.concat([this.carry, chunk.subarray(i)]);
      shift = i - this.carry.length;
      this.carry = null;
      i = 0;
    }
    for (const n = buf.length; i < n; i++) {
      const c = buf[i];
      if (c === QUOTE) {
        const end = this.stringEnd(buf, i + 1);
        if (end < 0) {
          this.carry = Buffer.from(buf.subarray(i));
          return -1;
        }
        i = end;
      } else if (c === CLOSE) {
        return i + 1 + shift;
      } else if (c !== COMMA && !isSpace(c)) {
        throw new Error(`strings: unexpected byte 0x${c.toString(16)}`);
      }
    }
    return -1;
  }

  /** Reads one string whose body starts at `start`; returns the index of its closing quote or -1. */
  stringEnd(buf, start) {
    let escaped = false;
    for (let j = start, n = buf.length; j < n; j++) {
      const c = buf[j];
      if (c === BACKSLASH) {
        escaped = true;
        j++;
      } else if (c === QUOTE) {
        const body = buf.toString('utf8', start, j);
        this.strings.push(escaped ? JSON.parse(`"${body}"`) : body);
        return j;
      }
    }
    return -1;
  }
}
