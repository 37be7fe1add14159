// Healthy linear warm-up: for its first WARM_S after start the app builds a lookup table at a steady
// WARM_MB_PER_MIN (routes compiled, a dictionary loaded row by row), then stops for good. Unlike
// warm-up.js it does not slow down as it ends: over its first 90 s it rises exactly as a leak does.
//   PORT, WARM_S (90), WARM_MB_PER_MIN (10), CHURN_KB_PER_SEC (512)
import http from 'node:http';

const MiB = 1024 * 1024;
const warmMs = Number(process.env.WARM_S ?? 90) * 1000;
const perMs = (Number(process.env.WARM_MB_PER_MIN ?? 10) * MiB) / 60_000;
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);
const PIECE = 4096; // one row of the table: 504 doubles and its header, ~4 KiB

const table = [];
const start = Date.now();
const timer = setInterval(() => {
  const age = Math.min(Date.now() - start, warmMs); // by the clock: a starved timer still builds on time
  const want = Math.floor((perMs * age) / PIECE);
  while (table.length < want) table.push(new Array(504).fill(table.length + 0.5));
  if (age >= warmMs) clearInterval(timer);
}, 200);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} table ${table.length} rows\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
