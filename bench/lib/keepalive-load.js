// The bench's light keep-alive request load (bench/detection.js), so workers serve traffic and
// drains have something to drain.
import http from 'node:http';

// Free sockets are dropped after 4 s idle, under Node's 5 s server keepAliveTimeout, as
// agentkeepalive does by default: otherwise a request sent on a socket the server is closing for
// idleness fails, with or without a supervisor. Every failure is kept with its time and cause.
// stop() lets the requests in flight finish before it destroys the agent: destroying a socket under
// a request fails it (ECONNRESET, "socket hang up"), the load's own doing, not the supervisor's.
const STOP_WAIT_MS = 5000;

/** GET / at `rps` requests a second on 127.0.0.1:`port`; `counts` as they come, `await stop()` at the end. */
export function startLoad(port, rps) {
  const counts = { ok: 0, failed: 0, failures: [] };
  if (!(rps > 0)) return { counts, async stop() {} };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4, timeout: 4000 });
  const fail = (why) => { counts.failed++; counts.failures.push({ time: new Date().toISOString(), why }); };
  const inFlight = new Set();
  const timer = setInterval(() => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', () => { if (res.statusCode === 200) counts.ok++; else fail(`HTTP ${res.statusCode}`); });
    }).on('error', (err) => fail(err.code ?? err.message));
    inFlight.add(req);
    req.on('close', () => inFlight.delete(req));
  }, 1000 / rps);
  return {
    counts,
    async stop() {
      clearInterval(timer);
      // At most STOP_WAIT_MS: a request still unanswered then is destroyed, and counted as failed.
      const closed = () => Promise.all([...inFlight].map((req) => new Promise((r) => req.once('close', r))));
      let wait;
      await Promise.race([closed(), new Promise((r) => { wait = setTimeout(r, STOP_WAIT_MS); })]);
      clearTimeout(wait);
      for (const req of inFlight) req.destroy();
      agent.destroy();
      await closed();
    },
  };
}
