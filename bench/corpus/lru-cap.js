// Healthy cache filling to its cap: an LRU (a Map, oldest entry evicted) in front of a slow
// backend. Lookups arrive at REQ_PER_SEC with keys spread over twice the cap, so at start every
// lookup misses and the cache grows fast, then ever slower as hits rise, until it holds CAP_MB
// (≈ 60 s at the defaults). From then on every miss evicts: the live heap is flat, while the
// evicted entries, old enough to be promoted, pile up as old-generation garbage between major GCs.
//   PORT, CAP_MB (24), ENTRY_KB (4), REQ_PER_SEC (150), CHURN_KB_PER_SEC (512)
import http from 'node:http';

const entryKb = Number(process.env.ENTRY_KB ?? 4);
const cap = Math.round((Number(process.env.CAP_MB ?? 24) * 1024) / entryKb);
const keys = 2 * cap;
const perMs = Number(process.env.REQ_PER_SEC ?? 150) / 1000; // by the clock: a starved timer still looks up on time
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);

const lru = new Map();
let hits = 0;
let misses = 0;
function lookup(key) {
  const v = lru.get(key);
  if (v) { lru.delete(key); lru.set(key, v); hits++; return v; }
  misses++;
  const fresh = { key, at: Date.now(), body: new Array((entryKb * 1024) / 8 - 8).fill(key + 0.5) };
  lru.set(key, fresh);
  if (lru.size > cap) lru.delete(lru.keys().next().value);
  return fresh;
}

let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last);
  last = Date.now();
  for (; owed >= 1; owed--) lookup(Math.floor(Math.random() * keys));
}, 100);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} cache ${lru.size}/${cap} hits ${hits} misses ${misses}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
