// Healthy cache filling steadily to its cap: every lookup of the steady traffic (REQ_PER_SEC, new
// keys) misses until the cache holds CAP_MB, reached after FILL_S at a constant rate; from then on
// each miss evicts the oldest entry, so the live heap is flat. Over its first two minutes it rises
// as a leak does, with no slowing down before the cap.
//   PORT, CAP_MB (20), FILL_S (120), ENTRY_KB (4), CHURN_KB_PER_SEC (512)
import http from 'node:http';

const entryKb = Number(process.env.ENTRY_KB ?? 4);
const cap = Math.round((Number(process.env.CAP_MB ?? 20) * 1024) / entryKb);
const perMs = cap / (Number(process.env.FILL_S ?? 120) * 1000); // lookups a ms, each of a new key
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);

const cache = new Map();
let key = 0;
function lookup(k) {
  const hit = cache.get(k);
  if (hit) return hit;
  const fresh = { k, at: Date.now(), body: new Array((entryKb * 1024) / 8 - 8).fill(k + 0.5) };
  cache.set(k, fresh);
  if (cache.size > cap) cache.delete(cache.keys().next().value);
  return fresh;
}

let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last); // by the clock: a starved timer still looks up on time
  last = Date.now();
  for (; owed >= 1; owed--) lookup(key++);
}, 100);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} cache ${cache.size}/${cap}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
