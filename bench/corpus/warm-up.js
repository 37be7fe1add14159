// Healthy slow warm-up: after start the app fills lazily built state (route tables, compiled
// templates, a connection pool's buffers) that approaches WARM_MB with a time constant of
// WARM_TAU_S: fast at first, then ever slower, and it stops. At the defaults the heap still grows
// faster than 2 MiB/min two minutes after start (30 MiB, τ 40 s: 2 MiB/min at ~125 s).
//   PORT, WARM_MB (30), WARM_TAU_S (40), CHURN_KB_PER_SEC (512)
import http from 'node:http';

const MiB = 1024 * 1024;
const total = Number(process.env.WARM_MB ?? 30) * MiB;
const tauMs = Number(process.env.WARM_TAU_S ?? 40) * 1000;
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);
const PIECE = 4096; // one piece of state: 504 doubles and its header, ~4 KiB

const state = [];
const start = Date.now();
const timer = setInterval(() => {
  // by the clock: the state built so far follows total × (1 − e^(−t/τ))
  const want = Math.floor((total * (1 - Math.exp(-(Date.now() - start) / tauMs))) / PIECE);
  while (state.length < want) state.push(new Array(504).fill(state.length + 0.5));
  if (Date.now() - start > 12 * tauMs) clearInterval(timer);
}, 200);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} warm ${state.length} pieces\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
