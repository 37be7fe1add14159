// A slow heap leak: every tick a listener closure capturing a small array is added to a
// long-lived emitter and never removed, LEAK_MB_PER_MIN of heap a minute.
//   PORT, LEAK_MB_PER_MIN (3), CHURN_KB_PER_SEC (512)
import http from 'node:http';
import { EventEmitter } from 'node:events';

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 3) * 1024 * 1024) / 60_000; // by the clock: a starved timer still leaks on time
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);

const bus = new EventEmitter();
bus.setMaxListeners(0);
let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last);
  last = Date.now();
  for (; owed >= 4096; owed -= 4096) {
    const context = new Array(510).fill(0.5); // ~4 KiB of doubles the closure keeps alive
    bus.on('config', () => context.length);
  }
}, 200);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} listeners ${bus.listenerCount('config')}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
