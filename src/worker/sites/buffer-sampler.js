// Which code retains Buffer memory. V8's sampling heap profiler cannot see it (a 50 MiB Buffer leak
// shows as 30 KiB of Uint8Array objects): the bytes live outside the heap. So Buffers are sampled
// as V8 samples the heap, by bytes: a countdown drawn from an exponential distribution (mean
// SAMPLING_INTERVAL) runs down with every Buffer allocated, and only the allocation that crosses it
// pays for a stack. A sample weighs n / (1 − e^(−n/interval)) bytes, the inverse of its chance of
// being picked, so small and large Buffers are counted without bias. A FinalizationRegistry takes a
// sample out of the table when its Buffer is collected: what is left is *retained* bytes per site.
//
// What is wrapped: Buffer.alloc, allocUnsafe, allocUnsafeSlow, from and concat, the statics Node's
// own modules call too (fs, streams). `new ArrayBuffer` and `new Uint8Array(n)` are not: wrapping
// the global constructors would break `x.constructor === Uint8Array` in the app's libraries.
// Installed only while external growth is suspected; stop() puts the originals back.
//
// zlib streams too: one never ended holds its zlib state (~270 KiB for a default deflate), which
// Node counts partly as external memory and the rest as native. Every stream made by zlib's
// create* factories while the sampler runs is recorded (they are few next to Buffers), weighed by
// the state zlib's own formulas give, and leaves the table when it closes or is collected. So an
// external or native rise from streams left open names the line that opens them, as a resource.
import zlib from 'node:zlib';
import { syncBuiltinESMExports } from 'node:module';
import { classifyStack } from '../../core/sites/frames.js';
import { isOurs } from './heap-profiler.js';
import { packageVersion } from './package-version.js';

// One sample per 128 KiB of Buffers on average: a 1 MiB/min leak gets ~8 samples over the four
// points of a confirmation (none at all: 1 in 3,000). Each sample costs a captured stack, and its
// Buffer is freed later than an unwatched one: a Buffer held weakly (by this registry, or by a
// WeakRef alike) stays until a later GC. On the cost bench's app (~300 MB/s of Buffers) RSS went
// 69 → 130 MiB with the sampler, 69 with the stacks captured but nothing registered (docs/leaks.md,
// "Buffers", has the cost); V8's external-memory GC trigger bounds it, and it lasts only as
// long as a suspicion.
export const SAMPLING_INTERVAL = 128 * 1024;
const METHODS = ['alloc', 'allocUnsafe', 'allocUnsafeSlow', 'from', 'concat'];
const STACK_LIMIT = 24;
const MAX_SITES = 64;

/** @param {{interval?:number, random?:() => number}} [o] */
export function bufferSampler({ interval = SAMPLING_INTERVAL, random = Math.random } = {}) {
  const originals = new Map();
  const zlibOriginals = new Map();
  const table = new Map(); // site key → {site, bytes, samples}
  let countdown = draw();
  let depth = 0; // Buffer.concat calls Buffer.allocUnsafe: one allocation, counted once
  let startedAt = null;
  let ours = 0;
  const registry = new FinalizationRegistry(({ key, weight }) => {
    const e = table.get(key);
    if (!e) return;
    e.bytes -= weight;
    e.samples--;
    if (e.samples <= 0) table.delete(key);
  });

  function draw() {
    return -Math.log(1 - random()) * interval;
  }

  function record(buf, n, wrapper) {
    track(buf, n / (1 - Math.exp(-n / interval)), wrapper, null);
  }

  function track(obj, weight, wrapper, resource) {
    const holder = {};
    const { stackTraceLimit, prepareStackTrace } = Error;
    let frames;
    try {
      Error.stackTraceLimit = STACK_LIMIT;
      Error.prepareStackTrace = (_, callSites) => callSites;
      Error.captureStackTrace(holder, wrapper);
      frames = holder.stack.map((c) => ({ functionName: c.getFunctionName() ?? '', url: c.getFileName() ?? '', lineNumber: c.getLineNumber() ?? 0 }));
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
      Error.prepareStackTrace = prepareStackTrace;
    }
    const c = classifyStack(frames, { ours: isOurs, cwd: process.cwd(), zeroBased: false });
    if (c?.ours) { ours += weight; return; }
    const site = c?.site ?? { fn: '(unknown)', file: '', line: 0 };
    const key = `${site.fn}\u0000${site.file}\u0000${site.line}\u0000${resource ?? ''}`;
    let e = table.get(key);
    if (!e) {
      if (table.size >= 4 * MAX_SITES) return; // an app with endless sites: the big ones are in already
      const named = resource ? { ...site, resource } : { ...site };
      if (c?.library) {
        const v = packageVersion(c.library.dir);
        named.package = v ? `${c.library.name}@${v}` : c.library.name;
        if (c.through) {
          const tv = packageVersion(c.through.dir);
          named.through = tv ? `${c.through.name}@${tv}` : c.through.name;
        }
        if (c.via) named.via = c.via;
      }
      table.set(key, (e = { site: named, bytes: 0, samples: 0 }));
    }
    e.bytes += weight;
    e.samples++;
    const held = { key, weight };
    registry.register(obj, held, held);
    return held;
  }

  // A stream that closes leaves at once (its zlib state is freed then), not at a later GC.
  function forget(held) {
    if (!registry.unregister(held)) return;
    const e = table.get(held.key);
    if (!e) return;
    e.bytes -= held.weight;
    e.samples--;
    if (e.samples <= 0) table.delete(held.key);
  }

  function wrapZlib(name, fn) {
    const resource = `zlib ${name.slice('create'.length)}`;
    return function tracked(...args) {
      let stream;
      depth++; // the stream's own output Buffer is part of its weight
      try {
        stream = fn.apply(this, args);
      } finally {
        depth--;
      }
      if (stream && typeof stream.once === 'function') {
        const held = track(stream, zlibStateBytes(name, args[0]), tracked, resource);
        if (held) stream.once('close', () => forget(held));
      }
      return stream;
    };
  }

  function wrap(name, fn) {
    return function sampled(...args) {
      if (depth > 0) return fn.apply(this, args);
      depth++;
      let buf;
      try {
        buf = fn.apply(this, args);
      } finally {
        depth--;
      }
      // A Buffer over an ArrayBuffer the app passed in allocates nothing.
      const n = buf?.byteLength ?? 0;
      if (n > 0 && !(name === 'from' && isArrayBufferLike(args[0]))) {
        countdown -= n;
        if (countdown <= 0) {
          countdown = draw();
          record(buf, n, sampled);
        }
      }
      return buf;
    };
  }

  return {
    get running() { return startedAt !== null; },
    /** Wrap the Buffer statics (once). */
    start(now = Date.now()) {
      if (startedAt !== null) return;
      startedAt = now;
      for (const m of METHODS) {
        const fn = Buffer[m];
        if (typeof fn !== 'function') continue;
        originals.set(m, fn);
        Buffer[m] = wrap(m, fn);
      }
      for (const m of ZLIB_FACTORIES) {
        const fn = zlib[m];
        if (typeof fn !== 'function') continue;
        zlibOriginals.set(m, fn);
        setFactory(m, wrapZlib(m, fn));
      }
      syncBuiltinESMExports(); // `import { createGzip } from 'node:zlib'` sees the wrapper too
    },
    /** Put the originals back and forget the table. */
    stop() {
      for (const [m, fn] of originals) Buffer[m] = fn;
      originals.clear();
      for (const [m, fn] of zlibOriginals) setFactory(m, fn);
      if (zlibOriginals.size) syncBuiltinESMExports();
      zlibOriginals.clear();
      table.clear();
      startedAt = null;
      ours = 0;
    },
    /**
     * Retained Buffer bytes per site since start (estimated from the samples still alive), as a
     * flat profile: { startedAt, total, ours, sites: [{fn, file, line, bytes, samples, package?, via?}] }.
     */
    read() {
      if (startedAt === null) return null;
      let total = 0;
      const sites = [];
      for (const e of table.values()) {
        total += e.bytes;
        sites.push({ ...e.site, bytes: Math.round(e.bytes), samples: e.samples });
      }
      sites.sort((a, b) => b.bytes - a.bytes);
      return { startedAt, total: Math.round(total), ours: Math.round(ours), sites: sites.slice(0, MAX_SITES) };
    },
  };
}

// zlib defines its factories read-only but configurable: redefined, keeping the rest of the descriptor.
const setFactory = (m, fn) => Object.defineProperty(zlib, m, { ...Object.getOwnPropertyDescriptor(zlib, m), value: fn });

const ZLIB_FACTORIES = ['createDeflate', 'createInflate', 'createDeflateRaw', 'createInflateRaw', 'createGzip', 'createGunzip', 'createUnzip',
  'createBrotliCompress', 'createBrotliDecompress', 'createZstdCompress', 'createZstdDecompress'];

/**
 * The memory one zlib stream holds, from zlib's own formulas (zconf.h): deflate
 * 2^(windowBits+2) + 2^(memLevel+9), inflate 2^windowBits + 7 KiB, plus the output chunk. Brotli and
 * zstd state depends on quality and window: a flat 1 MiB and 256 KiB, rough, for ranking sites.
 */
export function zlibStateBytes(factory, o = {}) {
  const chunk = Number.isInteger(o?.chunkSize) ? o.chunkSize : 16 * 1024;
  const windowBits = Number.isInteger(o?.windowBits) && o.windowBits > 0 ? o.windowBits : 15;
  const memLevel = Number.isInteger(o?.memLevel) ? o.memLevel : 8;
  if (/Brotli|Zstd/.test(factory)) return chunk + (/Compress/.test(factory) ? 1024 * 1024 : 256 * 1024);
  if (/Deflate|Gzip/.test(factory)) return chunk + 2 ** (windowBits + 2) + 2 ** (memLevel + 9);
  return chunk + 2 ** windowBits + 7 * 1024;
}

const isArrayBufferLike = (x) => x instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && x instanceof SharedArrayBuffer);
