// Allocator retention, not a leak: a burst of compression at start (BURST_STREAMS deflate streams at
// once, each fed 64 KiB of incompressible data, so every zlib buffer is paged in) has zlib malloc
// ~290 KiB of state per stream. All but every KEEP_EVERY-th stream are then closed; the few kept (a
// fixed set, like long-lived compressed connections, ~16 MiB) sit between the freed chunks, so malloc
// can give back almost nothing: RSS outside the V8 heap and outside `external` stays high and FLAT
// for the rest of the run, while heap and external are small. All of it happens before listen();
// afterwards only light steady work (a small gzip per request, young-generation churn).
// A correct supervisor names no leak and recycles nothing; its native-gap advice says the gap is
// flat (memory malloc keeps, not native allocations that grow).
// Measured under plain node 20.20.2, glibc 2.36, 2 cores, --expose-gc with gc() before each read,
// RSS − heapTotal − external (heap ~6 MiB, external 3 MiB after the burst):
//   default:             300–315 MiB from 5 s on, flat (±1 MiB) for 3 min
//   MALLOC_ARENA_MAX=2:  309–319 MiB, the same: NOT lower. The state and the holes between the kept
//   streams are fragmentation within one arena (a second wave of synchronous deflates on the main
//   thread landed in the same holes: +30 MiB, not +300), so capping the number of arenas does not
//   shrink this; the advice's MALLOC_ARENA_MAX=2 helps where many threads malloc into arenas of
//   their own, not here.
//   LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 (Debian's libjemalloc2): 316–329 MiB, flat:
//   not lower either. So this app proves the flat/rising split (no leak named, the advice says
//   flat), not that the flat part is freed memory an allocator setting gives back.
//   PORT, BURST_STREAMS (900), KEEP_EVERY (16), CHURN_KB_PER_SEC (512)
import http from 'node:http';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';

const BURST = Number(process.env.BURST_STREAMS ?? 900);
const KEEP_EVERY = Number(process.env.KEEP_EVERY ?? 16);
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);
const input = randomBytes(64 * 1024); // incompressible: every zlib buffer gets written, so paged in

const kept = [];
let closed = 0;
const settle = (z, i) => {
  if (i % KEEP_EVERY === 0) kept.push(z);
  else { z.close(); closed++; }
};
// The burst: every stream allocates its zlib state and is fed once; then all but the kept ones close.
await new Promise((resolve) => {
  let pending = BURST;
  for (let i = 0; i < BURST; i++) {
    const z = zlib.createDeflate();
    z.resume();
    z.write(input);
    z.flush(() => {
      settle(z, i);
      if (--pending === 0) resolve();
    });
  }
});

setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

const page = Buffer.from(JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ i, name: `row ${i}` })) }));
http.createServer((req, res) => {
  zlib.gzip(page, (err, body) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`ok ${process.pid} kept ${kept.length} closed ${closed} gzip ${err ? 'failed' : body.length}\n`);
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
