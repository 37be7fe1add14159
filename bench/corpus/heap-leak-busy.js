// A heap leak in a busy server: busy-healthy's load (lib/busy-load.js: a collection on nearly every
// poll, old garbage piling up between major GCs), and an audit journal that keeps an entry per request,
// LEAK_MB_PER_MIN of JS heap a minute, by the clock.
//   PORT, LEAK_MB_PER_MIN (1.5), and lib/busy-load.js's
import http from 'node:http';
import { startBusyLoad } from './lib/busy-load.js';

startBusyLoad();

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
