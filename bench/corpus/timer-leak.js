// A leak through timers' closures: every simulated request starts a setInterval whose callback
// holds ~4 KiB and is never cleared, LEAK_MB_PER_MIN (3) a minute (and 12 timers a second).
//   PORT, LEAK_MB_PER_MIN (3), CHURN_KB_PER_SEC (512)
import http from 'node:http';

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 3) * 1024 * 1024) / 60_000;
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);
const HEALTHY = process.env.TWIN === 'healthy';

let live = 0;
function onRequest() {
  const context = new Array(510).fill(0.5);
  const poll = setInterval(() => context.length, 60_000);
  live++;
  if (HEALTHY) setTimeout(() => { clearInterval(poll); live--; }, 1000); // the twin clears it
}
let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last); // by the clock
  last = Date.now();
  for (; owed >= 4096; owed -= 4096) onRequest();
}, 100);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => res.end(`ok ${process.pid} timers ${live}\n`)).listen(Number(process.env.PORT), '127.0.0.1');
