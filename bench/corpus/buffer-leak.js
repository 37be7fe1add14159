// An external-memory leak: Buffers (off the V8 heap, counted in `external`) kept in a list, as a
// socket handler that stashes every chunk would. LEAK_MB_PER_MIN a minute, pages touched.
//   PORT, LEAK_MB_PER_MIN (6), CHUNK_KB (64), CHURN_KB_PER_SEC (512)
import http from 'node:http';

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 6) * 1024 * 1024) / 60_000; // by the clock: a starved timer still leaks on time
const chunk = Number(process.env.CHUNK_KB ?? 64) * 1024;
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);

const stash = [];
let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last);
  last = Date.now();
  for (; owed >= chunk; owed -= chunk) stash.push(Buffer.alloc(chunk, stash.length & 0xff));
}, 200);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} stash ${stash.length}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
