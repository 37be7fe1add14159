// One fixed buffer for the output that waits on a slow reader: a queued write is a view of it,
// released in order as the stream's callbacks say each write is done. A flood through a lagging
// reader then costs no allocation per write and no garbage for the GC to find later: the copies
// of the workers' reads that had waited as separate Buffers took the primary ~35 MiB past its
// idle size on this machine, and further on a faster one.

/**
 * @param {number} size bytes; allocated on the first copy
 */
export function byteRing(size) {
  /** @type {Buffer|null} */
  let buf = null;
  /** @type {Array<[number, number]>} in flight, oldest first: [start, end) */
  const regions = [];
  return {
    /** A copy of src in the ring, or null when it has no room for it now. */
    copyIn(src) {
      const len = src.length;
      if (len > size) return null;
      let at = 0;
      if (regions.length) {
        const head = regions[regions.length - 1][1];
        const tail = regions[0][0];
        if (head > tail) at = size - head >= len ? head : tail >= len ? 0 : -1;
        else at = tail - head >= len ? head : -1;
      }
      if (at === -1) return null;
      buf ??= Buffer.allocUnsafe(size);
      src.copy(buf, at);
      regions.push([at, at + len]);
      return buf.subarray(at, at + len);
    },
    /** The oldest copy is written: its room is free again. */
    release() { regions.shift(); },
    get inFlight() { return regions.length; },
  };
}
