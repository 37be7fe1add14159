// autocannon with every request accounted for, per connection. Used by the benches (through
// load-child.js, in a process of its own) and by the zero-dropped-requests tests.
//
// autocannon counts a failure only when a socket errors (ECONNRESET…), a request times out or a
// response is not 2xx. When the server closes a connection gracefully (FIN) with a request still
// outstanding, autocannon silently reconnects and counts nothing; that is exactly how a badly
// drained worker loses requests, so every request is put in one of these:
//  - answered: a response came back;
//  - errored: autocannon counted it (errors, which include timeouts);
//  - afterClose: written after the server's `Connection: close` response on that connection.
//    autocannon keeps writing after it; a compliant client (browsers, undici, node's Agent) never
//    sends such a request, so it is not a failure of the server;
//  - inFlightAtEnd: outstanding when the run stopped;
//  - lostSilently: outstanding when the server closed the connection without announcing it and
//    without an error: a failure autocannon does not see. Counted into `failed`.
import autocannon from 'autocannon';

/**
 * Start the load. Returns autocannon's instance (events: 'response', …; stop()) and a promise of
 * the summary: sent, ok, failed, lostSilently, afterClose, inFlightAtEnd, unaccounted, ….
 */
export function accountedLoad({ url, connections, duration, timeout = 10 }) {
  const errorCodes = {};
  const statusCodes = {};
  const acct = { afterClose: 0, unexplained: 0 };
  const clients = [];

  function setupClient(client) {
    clients.push(client);
    const connect = Object.getPrototypeOf(client)._connect;
    client._connect = function () {
      const rec = { pending: 0, closeSeen: false };
      this.cur = rec;
      connect.call(this);
      this.conn.once('close', () => {
        if (rec.done) return;
        rec.done = true;
        if (rec.closeSeen) acct.afterClose += rec.pending;
        else acct.unexplained += rec.pending;
      });
    };
    client.on('request', () => { client.cur.pending++; });
    client.on('response', () => { client.cur.pending--; });
    client.on('headers', (h) => {
      const hs = h.headers ?? [];
      for (let i = 0; i < hs.length; i += 2) {
        if (String(hs[i]).toLowerCase() === 'connection' && /close/i.test(String(hs[i + 1]))) client.cur.closeSeen = true;
      }
    });
  }

  let instance;
  const result = new Promise((resolve, reject) => {
    instance = autocannon({ url, connections, duration, timeout, setupClient }, (err, r) => {
      if (err) return reject(err);
      // Connections still open now were destroyed by autocannon at the end of the run.
      let inFlightAtEnd = 0;
      for (const c of clients) {
        if (c.cur.done) continue;
        c.cur.done = true;
        if (c.cur.closeSeen) acct.afterClose += c.cur.pending;
        else inFlightAtEnd += c.cur.pending;
      }
      // Each counted error or timeout ended a connection with its request outstanding.
      const lostSilently = Math.max(0, acct.unexplained - r.errors);
      resolve({
        sent: r.requests.sent,
        responses: r.requests.total,
        ok: r['2xx'],
        non2xx: r.non2xx,
        errors: r.errors, // autocannon's errors already include the timeouts
        timeouts: r.timeouts,
        lostSilently,
        failed: r.errors + r.non2xx + lostSilently,
        afterClose: acct.afterClose,
        inFlightAtEnd,
        // sent = responses + errors + lostSilently + afterClose + inFlightAtEnd when every request is accounted for.
        unaccounted: r.requests.sent - r.requests.total - r.errors - lostSilently - acct.afterClose - inFlightAtEnd,
        errorCodes,
        statusCodes,
        reqPerSec: { mean: r.requests.mean, stddev: r.requests.stddev, min: r.requests.min, max: r.requests.max },
        latencyMs: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
        durationSec: r.duration,
      });
    });
  });
  instance.on('reqError', (e) => { const k = e.code ?? e.message; errorCodes[k] = (errorCodes[k] ?? 0) + 1; });
  instance.on('response', (client, code) => { if (code < 200 || code > 299) statusCodes[code] = (statusCodes[code] ?? 0) + 1; });
  return { instance, result };
}
