// memoizee on a unique argument, without `max`: an access decision memoized per (user, URL), where
// the URL is the request's own, query string and all. Nearly every call is a new key, and memoizee
// keeps every one forever: its cache holds the key it builds from the arguments (`primitive: true`
// joins them into one string; the decision itself is a boolean). About LEAK_MB_PER_MIN (3) MiB/min.
// Requests are simulated by the clock, each authorized by `authorize` as a request handler would
// (the bench's own GET / load is authorized too, always the same key).
// The healthy twin (../memoizee-healthy) is this same server with `max: 1000`: the same calls, and
// memoizee drops the least recently used keys past 1000.
//   PORT, LEAK_MB_PER_MIN (3)
import http from 'node:http';
import memoize from 'memoizee';

const healthy = process.env.TWIN === 'healthy';

/** The policy: a user may see their own orders, and public pages. */
function decide(user, url) {
  return !url.startsWith('/orders/') || url.startsWith(`/orders/${user}/`);
}
const canAccess = memoize(decide, healthy ? { primitive: true, max: 1000 } : { primitive: true });

// The handler's access check.
function authorize(user, url) {
  return canAccess(user, url);
}

// Retained per new key (measured under plain node, heapUsed after gc).
const KEY_BYTES = 285;
let requests = 0;
function simulateRequest() {
  const n = requests++;
  const user = `user-${n % 997}`;
  const click = `${n.toString(36).padStart(12, '0')}${(n * 7919).toString(36).padStart(12, '0')}`.repeat(3);
  authorize(user, `/orders/${user}/items?page=${n % 20}&sort=price&utm_source=newsletter&utm_medium=email&utm_campaign=spring-sale&utm_content=hero-banner-b&fbclid=${click}`);
}

http.createServer((req, res) => {
  res.end(authorize('anonymous', req.url) ? `ok ${process.pid} requests ${requests}\n` : 'forbidden\n');
}).listen(Number(process.env.PORT), '127.0.0.1');

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 3) * 1024 * 1024) / 60_000;
let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last); // by the clock: a starved timer still leaks on time
  last = Date.now();
  for (; owed >= KEY_BYTES; owed -= KEY_BYTES) simulateRequest();
}, 100);
