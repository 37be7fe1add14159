// Healthy step change: after STEP_AFTER_S a cache of STEP_MB is loaded once and kept; memory jumps
// and then stays flat (the pattern of docs/incidents.md, incident 2). Bigger, not leaking: a recycle would not help.
//   PORT, STEP_MB (100), STEP_AFTER_S (20), CHURN_KB_PER_SEC (512)
import http from 'node:http';

const MiB = 1024 * 1024;
const mb = Number(process.env.STEP_MB ?? 100);
const afterS = Number(process.env.STEP_AFTER_S ?? 20);
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);

const cache = new Map();
setTimeout(() => {
  for (let i = 0; i < mb; i++) cache.set(`page-${i}`, new Array(MiB / 8).fill(i + 0.5));
}, afterS * 1000);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} cache ${cache.size} pages\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
