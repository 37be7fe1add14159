// Healthy and flat: a server whose only allocations are short-lived (a reply per request and a
// steady churn of garbage the young generation sweeps). Its baseline never moves.
//   PORT, CHURN_KB_PER_SEC (default 1024)
import http from 'node:http';

const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 1024) * 1024) / 10 / 64);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ ok: true, pid: process.pid, rows: Array.from({ length: 50 }, (_, i) => i) }));
}).listen(Number(process.env.PORT), '127.0.0.1');
