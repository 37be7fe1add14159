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
  const sites = siteTable();
  const draw = () => -Math.log(1 - random()) * interval;
  // depth: Buffer.concat calls Buffer.allocUnsafe, one allocation counted once; a zlib stream's
  // own output Buffer is part of the stream's weight.
  const st = { countdown: draw(), depth: 0, paused: false };
  const sample = (buf, n, wrapper) => {
    if (st.paused) return;
    st.countdown -= n;
    if (st.countdown > 0) return;
    st.countdown = draw();
    sites.track(buf, n / (1 - Math.exp(-n / interval)), wrapper, null);
  };
  let startedAt = null;
  let unpatch = null;
  return {
    get running() { return startedAt !== null; },
    /** Wrap the Buffer statics (once). */
    start(now = Date.now()) {
      if (startedAt !== null) return;
      startedAt = now;
      unpatch = patch(st, sample, sites);
    },
    /**
     * Sample nothing until resume(). Between a point's forced GC and its read, every Buffer made is
     * in flight (no GC has had a chance to take it), so a churning site sampled there would read as
     * retained: seen as 11 % of a leak's growth from one such sample.
     */
    pause() { st.paused = true; },
    resume() { st.paused = false; },
    /** Put the originals back and forget the table. */
    stop() {
      st.paused = false;
      unpatch?.();
      unpatch = null;
      sites.clear();
      startedAt = null;
    },
    /**
     * Retained Buffer bytes per site since start (estimated from the samples still alive), as a
     * flat profile: { startedAt, total, ours, sites: [{fn, file, line, bytes, samples, package?, via?}] }.
     */
    read() {
      return startedAt === null ? null : sites.read(startedAt);
    },
  };
}

/**
 * The retained table: samples by site, each taken out when its object is collected (or, for a
 * stream, closed). `ours` counts what nodesup's own code allocated, never a site.
 */
function siteTable() {
  const table = new Map(); // site key → {site, bytes, samples}
  let ours = 0;
  const drop = ({ key, weight }) => {
    const e = table.get(key);
    if (!e) return;
    e.bytes -= weight;
    e.samples--;
    if (e.samples <= 0) table.delete(key);
  };
  const registry = new FinalizationRegistry(drop);
  return {
    /** Count `weight` bytes of obj at the site that called `wrapper`; the handle to forget it by, if counted. */
    track(obj, weight, wrapper, resource) {
      const c = classifyStack(stackOf(wrapper), { ours: isOurs, cwd: process.cwd(), zeroBased: false });
      if (c?.ours) { ours += weight; return undefined; }
      const site = c?.site ?? { fn: '(unknown)', file: '', line: 0 };
      const key = `${site.fn}\u0000${site.file}\u0000${site.line}\u0000${resource ?? ''}`;
      let e = table.get(key);
      if (!e) {
        if (table.size >= 4 * MAX_SITES) return undefined; // an app with endless sites: the big ones are in already
        table.set(key, (e = { site: namedSite(c, site, resource), bytes: 0, samples: 0 }));
      }
      e.bytes += weight;
      e.samples++;
      const held = { key, weight };
      registry.register(obj, held, held);
      return held;
    },
    // A stream that closes leaves at once (its zlib state is freed then), not at a later GC.
    forget(held) {
      if (registry.unregister(held)) drop(held);
    },
    read(startedAt) {
      let total = 0;
      const sites = [];
      for (const e of table.values()) {
        total += e.bytes;
        sites.push({ ...e.site, bytes: Math.round(e.bytes), samples: e.samples });
      }
      sites.sort((a, b) => b.bytes - a.bytes);
      return { startedAt, total: Math.round(total), ours: Math.round(ours), sites: sites.slice(0, MAX_SITES) };
    },
    clear() {
      table.clear();
      ours = 0;
    },
  };
}

/** The stack of the code that called `wrapper`, innermost first, as the heap profile's frames. */
function stackOf(wrapper) {
  const holder = {};
  const { stackTraceLimit, prepareStackTrace } = Error;
  try {
    Error.stackTraceLimit = STACK_LIMIT;
    Error.prepareStackTrace = (_, callSites) => callSites;
    Error.captureStackTrace(holder, wrapper);
    return holder.stack.map((c) => ({ functionName: c.getFunctionName() ?? '', url: c.getFileName() ?? '', lineNumber: c.getLineNumber() ?? 0 }));
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    Error.prepareStackTrace = prepareStackTrace;
  }
}

/** A site as the table keeps it: a library's with its package (and version), the one the app called, and the app's line. */
function namedSite(c, site, resource) {
  const named = resource ? { ...site, resource } : { ...site };
  if (!c?.library) return named;
  named.package = versioned(c.library);
  if (c.through) named.through = versioned(c.through);
  if (c.via) named.via = c.via;
  return named;
}

const versioned = (lib) => {
  const v = packageVersion(lib.dir);
  return v ? `${lib.name}@${v}` : lib.name;
};

/** Wrap the Buffer statics and zlib's factories; returns what puts the originals back. */
function patch(st, sample, sites) {
  const buffers = [];
  for (const m of METHODS) {
    const fn = Buffer[m];
    if (typeof fn !== 'function') continue;
    buffers.push([m, fn]);
    Buffer[m] = wrapBuffer(m, fn, st, sample);
  }
  const factories = [];
  for (const m of ZLIB_FACTORIES) {
    const fn = zlib[m];
    if (typeof fn !== 'function') continue;
    factories.push([m, fn]);
    setFactory(m, wrapZlib(m, fn, st, sites));
  }
  syncBuiltinESMExports(); // `import { createGzip } from 'node:zlib'` sees the wrapper too
  return () => {
    for (const [m, fn] of buffers) Buffer[m] = fn;
    for (const [m, fn] of factories) setFactory(m, fn);
    if (factories.length) syncBuiltinESMExports();
  };
}

function wrapBuffer(name, fn, st, sample) {
  return function sampled(...args) {
    if (st.depth > 0) return fn.apply(this, args);
    st.depth++;
    let buf;
    try {
      buf = fn.apply(this, args);
    } finally {
      st.depth--;
    }
    // A Buffer over an ArrayBuffer the app passed in allocates nothing.
    const n = buf?.byteLength ?? 0;
    if (n > 0 && !(name === 'from' && isArrayBufferLike(args[0]))) sample(buf, n, sampled);
    return buf;
  };
}

function wrapZlib(name, fn, st, sites) {
  const resource = `zlib ${name.slice('create'.length)}`;
  return function tracked(...args) {
    let stream;
    st.depth++;
    try {
      stream = fn.apply(this, args);
    } finally {
      st.depth--;
    }
    if (stream && typeof stream.once === 'function') {
      const held = sites.track(stream, zlibStateBytes(name, args[0]), tracked, resource);
      if (held) stream.once('close', () => sites.forget(held));
    }
    return stream;
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
