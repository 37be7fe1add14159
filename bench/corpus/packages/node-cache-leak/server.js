// node-cache as a response cache keyed by the request URL, query string and all, with stdTTL 0 (the
// default: entries never expire) and no maxKeys: every URL with a fresh query (?ref=, a tracking or
// cache-busting parameter) is a miss, and its listing is kept forever. node-cache stores a deep copy
// of each value (useClones, the default), made by its dependency `clone`: that copy is what piles up,
// about LEAK_MB_PER_MIN (3) MiB/min. Requests are simulated by the clock, each served by cacheLookup
// as a request handler would (the bench's own GET / load looks up '/', always the same key).
// The healthy twin (../node-cache-healthy) is this same server with stdTTL 10 and checkperiod 5:
// the same lookups and sets, and entries expire after 10 s.
//   PORT, LEAK_MB_PER_MIN (3)
import http from 'node:http';
import NodeCache from 'node-cache';

const healthy = process.env.TWIN === 'healthy';
const cache = healthy ? new NodeCache({ stdTTL: 10, checkperiod: 5 }) : new NodeCache();

/** The listing a URL shows: 20 products (~2 KiB once cached). */
function listingOf(url, n) {
  const items = [];
  for (let i = 0; i < 20; i++) items.push({ id: n * 100 + i, cents: 199 + i, qty: 1 + (i % 3), rating: 4 + (i % 10) / 10 });
  return { url, page: n, items };
}

// The handler's cache lookup: a miss builds the listing and caches it under the URL.
function cacheLookup(url, n) {
  let listing = cache.get(url);
  if (listing === undefined) {
    listing = listingOf(url, n);
    cache.set(url, listing);
  }
  return listing;
}

// Retained per cached URL (measured under plain node, heapUsed after gc).
const ENTRY_BYTES = 2050;
let requests = 0;
function simulateRequest() {
  const n = requests++;
  cacheLookup(`/products?page=${n % 50}&ref=${n}`, n);
}

http.createServer((req, res) => {
  res.end(`ok ${process.pid} items ${cacheLookup('/', 0).items.length} keys ${cache.getStats().keys}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 3) * 1024 * 1024) / 60_000;
let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last); // by the clock: a starved timer still leaks on time
  last = Date.now();
  for (; owed >= ENTRY_BYTES; owed -= ENTRY_BYTES) simulateRequest();
}, 100);
