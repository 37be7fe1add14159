// The sticky bench's load: `connections` loops, each from its own loopback address (127.0.0.2,
// 127.0.0.3, …) so a balancer that routes by client address spreads them as it would real
// clients, for `duration` s; with `keepAlive` each loop holds one connection, else it opens one
// per request (what a sticky balancer pays for: it reads and routes each connection's first bytes).
// Prints { requests, reqPerSec, failed, why } on stdout (why: failures by error code or status).
import http from 'node:http';

const { url, connections, duration, keepAlive } = JSON.parse(process.argv[2]);
const until = Date.now() + duration * 1000;
let requests = 0;
let failed = 0;
/** Failures by what they were: an error code (ECONNRESET…) or `status <n>`. */
const why = {};
const fail = (what) => { failed++; why[what] = (why[what] ?? 0) + 1; };

const once = (agent) => new Promise((resolve) => {
  const req = http.get(url, { agent }, (res) => {
    res.resume();
    res.on('end', () => { if (res.statusCode === 200) requests++; else fail(`status ${res.statusCode}`); resolve(); });
  });
  req.on('error', (err) => { fail(err.code ?? err.message); resolve(); });
});

const t0 = Date.now();
await Promise.all(Array.from({ length: connections }, async (_, i) => {
  const agent = new http.Agent({ keepAlive, maxSockets: 1, localAddress: `127.0.${(i + 2) >> 8}.${(i + 2) & 255}` });
  while (Date.now() < until) await once(agent);
  agent.destroy();
}));
process.stdout.write(JSON.stringify({ requests, failed, why, reqPerSec: requests / ((Date.now() - t0) / 1000) }));
