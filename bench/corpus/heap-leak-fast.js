// A fast heap leak: an unbounded memo cache of objects keyed by a counter, LEAK_MB_PER_MIN of
// JS heap a minute that is never evicted (the classic "cache without eviction").
//   PORT, LEAK_MB_PER_MIN (30), CHURN_KB_PER_SEC (512)
import http from 'node:http';

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 30) * 1024 * 1024) / 60_000; // by the clock: a starved timer still leaks on time
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);

const memo = new Map();
let id = 0;
let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last);
  last = Date.now();
  // 1136 bytes per entry, measured: the object, 120 doubles, the key and the map slot
  for (; owed >= 1136; owed -= 1136) {
    memo.set(`key-${id}`, { id, at: Date.now(), scores: new Array(120).fill(id + 0.5) });
    id++;
  }
}, 200);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} memo ${memo.size}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
