// A heap leak in a busy server: busy-healthy's load (a collection on nearly every poll, old
// garbage piling up between major GCs), and an audit journal that keeps an entry per request,
// LEAK_MB_PER_MIN of JS heap a minute, by the clock.
//   PORT, LEAK_MB_PER_MIN (1.5), CHURN_MB_PER_SEC (40), HELD_KB_PER_SEC (200), HELD_S (3)
import http from 'node:http';

const TICK_MS = 50;
const perTick = (rate, size) => Math.round((rate * TICK_MS) / 1000 / size);
// Garbage in 8 KiB arrays: the young generation fills at the rate a busy server's does, for
// little of the CPU a server would spend making it.
const churn = perTick(Number(process.env.CHURN_MB_PER_SEC ?? 40) * 1024 * 1024, 8 * 1024);
const held = perTick(Number(process.env.HELD_KB_PER_SEC ?? 200) * 1024, 64); // ~64 bytes a row
const inFlight = new Array(Math.round((Number(process.env.HELD_S ?? 3) * 1000) / TICK_MS));
let tick = 0;
setInterval(() => {
  for (let i = 0; i < churn; i++) globalThis.sink = new Array(1024).fill(i);
  inFlight[tick++ % inFlight.length] = Array.from({ length: held }, (_, i) => ({ i, at: tick }));
}, TICK_MS);

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 1.5) * 1024 * 1024) / 60_000;
const journal = [];
let owed = 0;
let last = Date.now();

// ~1 KiB an entry: the record and its 100 doubles
function remember(url) {
  owed += perMs * (Date.now() - last);
  last = Date.now();
  for (; owed >= 1024; owed -= 1024) journal.push({ url, at: Date.now(), marks: new Array(100).fill(journal.length + 0.5) });
}

http.createServer((req, res) => {
  remember(req.url);
  res.end(`ok ${process.pid} journal ${journal.length}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
