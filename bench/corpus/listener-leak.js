// A listener leak: every simulated request subscribes a handler (a closure holding ~4 KiB) to a
// long-lived emitter and never unsubscribes, LEAK_MB_PER_MIN (3) of heap a minute.
//   PORT, LEAK_MB_PER_MIN (3), CHURN_KB_PER_SEC (512)
import http from 'node:http';
import { EventEmitter } from 'node:events';

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 3) * 1024 * 1024) / 60_000;
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);
const HEALTHY = process.env.TWIN === 'healthy';

const feed = new EventEmitter();
feed.setMaxListeners(0);
function onRequest() {
  const context = new Array(510).fill(0.5); // what the handler closes over
  const handler = () => context.length;
  feed.on('data', handler);
  if (HEALTHY) setTimeout(() => feed.off('data', handler), 1000); // the twin unsubscribes when done
}
let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last); // by the clock
  last = Date.now();
  for (; owed >= 4096; owed -= 4096) onRequest();
  feed.emit('data');
}, 100);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => res.end(`ok ${process.pid} listeners ${feed.listenerCount('data')}\n`)).listen(Number(process.env.PORT), '127.0.0.1');
