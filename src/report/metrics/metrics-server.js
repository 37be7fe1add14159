// The HTTP face of the metrics: /metrics for Prometheus, /healthz and /readyz for probes
// (docs/metrics.md, docs/kubernetes.md), and /debug/pprof/heap, the newest leak profile, where Go
// programs serve theirs, so a profiler's scraper (Grafana Alloy's pyroscope.scrape) finds it.
// node:http only; short keep-alive so a scraper's idle socket never holds a stopping supervisor open.

import { createRequire } from 'node:module';
import { NodesupError } from '../../errors.js';

// require, not import: an ES import of node:http reads every export, and on Node 22 and later
// http.WebSocket (and its siblings) are getters that load undici, ~11 MiB of RSS in the primary.
const http = createRequire(import.meta.url)('node:http');

const TEXT = 'text/plain; charset=utf-8';

/** host:port as people type it, with brackets around an IPv6 host. */
export function formatHostPort(host, port) {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

const PPROF_HEAP = '/debug/pprof/heap';
const NO_PROFILE = 'no heap profile yet: nodesup makes one when it names a heap or external leak, or recycles a worker for memory';

/**
 * Serve a metrics registry on exactly host:port; rejects with NODESUP_ERR_BIND when it cannot.
 * heapProfile: the newest pprof profile ({bytes, at}), or null before the first.
 */
export function startMetricsServer({ metrics, host = '127.0.0.1', port = 9209, isReady = () => true, heapProfile = () => null }) {
  const { registry } = metrics;
  const server = http.createServer((req, res) => {
    const send = (code, body, type = TEXT, extra = {}) => {
      res.writeHead(code, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...extra });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' && path !== '/healthz' && path !== '/readyz' && path !== PPROF_HEAP) return send(404, 'not found');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed', TEXT, { allow: 'GET, HEAD' });
    if (path === '/healthz') return send(200, 'ok'); // answering at all is the proof the primary lives
    if (path === PPROF_HEAP) return sendProfile(req, res, send, heapProfile);
    if (path === '/readyz') {
      let ready = false;
      try { ready = Boolean(isReady()); } catch { /* a failing check is not ready */ }
      return ready ? send(200, 'ok') : send(503, 'not ready');
    }
    registry.metrics().then(
      (body) => send(200, body, registry.contentType),
      (err) => send(500, `metrics: ${err?.message ?? err}`),
    );
  });
  server.keepAliveTimeout = 2000;
  server.headersTimeout = 5000;
  server.requestTimeout = 10_000;

  return new Promise((resolve, reject) => {
    const onError = (err) => {
      const why = err.code ?? err.message;
      reject(new NodesupError('NODESUP_ERR_BIND',
        `metrics: cannot listen on ${formatHostPort(host, port)}: ${why} (choose another with --metrics host:port, or --metrics false)`,
        { cause: err }));
    };
    server.once('error', onError);
    server.listen({ host, port }, () => {
      server.off('error', onError);
      const bound = server.address();
      let closing = null;
      resolve({
        server,
        address: { host, port: bound.port },
        url: `http://${formatHostPort(host, bound.port)}`,
        /** Stop listening and drop every connection, idle or not. */
        close() {
          closing ??= new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}

// As Go's net/http/pprof answers: gzip-compressed protobuf as an attachment. Its Last-Modified says
// when the leak was seen; the profile's own time field says the same.
function sendProfile(req, res, send, heapProfile) {
  let p = null;
  try { p = heapProfile(); } catch { /* a failing read is no profile */ }
  if (!p?.bytes) return send(404, `${NO_PROFILE}\n`);
  res.writeHead(200, {
    'content-type': 'application/octet-stream', 'content-length': p.bytes.length, 'cache-control': 'no-store',
    'content-disposition': 'attachment; filename="heap.pb.gz"', 'last-modified': new Date(p.at).toUTCString(),
  });
  res.end(req.method === 'HEAD' ? undefined : p.bytes);
}
