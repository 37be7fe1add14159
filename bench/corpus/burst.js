// Healthy with bursts: every BURST_EVERY_S a request-like job builds a BURST_MB temporary result,
// holds it BURST_HOLD_S, and drops it. Big, brief, and fully freed: not a leak.
//   PORT, BURST_MB (100), BURST_EVERY_S (40), BURST_HOLD_S (3), CHURN_KB_PER_SEC (512)
import http from 'node:http';

const MiB = 1024 * 1024;
const mb = Number(process.env.BURST_MB ?? 100);
const everyS = Number(process.env.BURST_EVERY_S ?? 40);
const holdS = Number(process.env.BURST_HOLD_S ?? 3);
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);

let burst = null;
setInterval(() => {
  burst = Array.from({ length: mb }, () => new Array(MiB / 8).fill(2.5));
  setTimeout(() => { burst = null; }, holdS * 1000);
}, everyS * 1000);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid}${burst ? ' (busy)' : ''}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
