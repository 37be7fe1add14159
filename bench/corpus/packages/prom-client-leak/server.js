// prom-client with an unbounded label: a request-latency Histogram labelled by the request's path as
// it came (/users/<id>?ref=...), not by its route template. Every new label value is a new series:
// prom-client keeps its labels and a copy of the bucket counts for each, forever (nothing expires a
// series; /metrics exports them all). A cardinality leak of about LEAK_MB_PER_MIN (3) MiB/min.
// Requests are simulated by the clock, each recorded by countRequest as a request handler would (the
// bench's own GET / load is recorded too, under '/').
// The healthy twin (../prom-client-healthy) is this same server labelling by the route template
// (/users/:id): the same observations into a handful of series.
//   PORT, LEAK_MB_PER_MIN (3)
import http from 'node:http';
import client from 'prom-client';

const healthy = process.env.TWIN === 'healthy';
const registry = new client.Registry();
const duration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'Duration of HTTP requests in seconds',
  labelNames: ['method', 'route', 'code'],
  registers: [registry],
});

// What a request handler does when it answers: one observation, labelled.
function countRequest(method, path, route, code, seconds) {
  duration.observe({ method, route: healthy ? route : path, code }, seconds);
}

// Retained per new series (measured under plain node, heapUsed after gc: ~590 bytes).
const SERIES_BYTES = 590;
let requests = 0;
function simulateRequest() {
  const id = requests++;
  countRequest('GET', `/users/${id}?ref=home`, '/users/:id', 200, 0.001 + (id % 50) / 1000);
}

http.createServer(async (req, res) => {
  const t0 = performance.now();
  if (req.url === '/metrics') {
    res.setHeader('content-type', registry.contentType);
    res.end(await registry.metrics());
    return;
  }
  res.end(`ok ${process.pid} requests ${requests}\n`);
  countRequest(req.method, req.url, '/', 200, (performance.now() - t0) / 1000);
}).listen(Number(process.env.PORT), '127.0.0.1');

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 3) * 1024 * 1024) / 60_000;
let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last); // by the clock: a starved timer still leaks on time
  last = Date.now();
  for (; owed >= SERIES_BYTES; owed -= SERIES_BYTES) simulateRequest();
}, 100);
