// An fd leak through unref'd keep-alive sockets (the "http.Agent per request"): every
// request to this app calls an upstream service with a new keep-alive http.Agent, which is then
// dropped with its idle socket still open. Idle keep-alive sockets are unref'd, so Node's active
// resources list leaves them out ("active handles 3" while hundreds of fds are open); only the
// fds grow. The upstream keeps idle connections forever (keepAliveTimeout 0) and runs in a
// worker_thread of its own, so that its side of the sockets is not in this thread's resources either.
//   PORT, CALLS_PER_SEC (6): upstream calls made by a timer, as if requests came in, FD_MAX (3000)
import http from 'node:http';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';

const perSec = Number(process.env.CALLS_PER_SEC ?? 6);
const max = Number(process.env.FD_MAX ?? 3000);

const upstream = new Worker(`
  const http = require('node:http');
  const { parentPort } = require('node:worker_threads');
  const s = http.createServer((req, res) => res.end('{"price":42}'));
  s.keepAliveTimeout = 0;
  s.listen(0, '127.0.0.1', () => parentPort.postMessage(s.address().port));
`, { eval: true });
const [upstreamPort] = await once(upstream, 'message');
upstream.unref();

let calls = 0;
function fetchPrice() {
  return new Promise((resolve) => {
    // The bug: a new Agent per call, so no socket is ever reused, and none is closed.
    const agent = new http.Agent({ keepAlive: true });
    http.get({ host: '127.0.0.1', port: upstreamPort, path: '/price', agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', resolve);
    calls++;
  });
}

let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += (perSec * (Date.now() - last)) / 1000;
  last = Date.now();
  for (; owed >= 1 && calls < max; owed--) fetchPrice();
}, 200);

http.createServer(async (req, res) => {
  await fetchPrice();
  res.end(`ok ${process.pid} calls ${calls}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
