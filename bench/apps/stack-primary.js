// The floor under any supervisor built on nodesup's required stack: bare-primary.js plus what
// such a primary must carry to do its two visible jobs, and nothing of nodesup's own. pino writes
// its log (the readiness events the bench waits on come through it), and a prom-client registry
// with one gauge per worker, set every second, is served at /metrics. prom-client and node:http
// load as nodesup loads them (its lib/ files by require; node:http by require, not an ES import,
// which would load undici through http's getters). SERVE=net answers a scrape with a response
// written by hand on node:net instead: the least a scrape needs, where node:http is not loaded.
// The forks and the stop are bare-primary.js's, written again rather than shared, so that the bare
// baseline every bench compares against loads no module of ours.
//   WORKERS=8 PORT=3000 METRICS_PORT=9464 SERVE=http|net node bench/apps/stack-primary.js bench/apps/idle.js
import cluster from 'node:cluster';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pino = require('pino');
const Registry = require('prom-client/lib/registry');
const Gauge = require('prom-client/lib/gauge');

const n = Number(process.env.WORKERS ?? 2);
const log = pino({ base: null });
const registry = new Registry();
const up = new Gauge({ name: 'stack_worker_pid', help: 'Each worker\'s pid.', labelNames: ['slot'], registers: [registry] });

cluster.setupPrimary({ exec: process.argv[2], args: process.argv.slice(3) });
log.info({ event: 'supervisor.start', primaryPid: process.pid, workers: n });
const workers = [];
for (let i = 0; i < n; i++) {
  const w = cluster.fork();
  workers.push(w);
  log.info({ event: 'worker.spawn', slot: i, pid: w.process.pid });
  w.once('listening', () => log.info({ event: 'worker.ready', slot: i, pid: w.process.pid }));
}
setInterval(() => workers.forEach((w, i) => up.set({ slot: String(i) }, w.process.pid)), 1000);

const port = Number(process.env.METRICS_PORT);
if (process.env.SERVE === 'net') {
  require('node:net').createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.once('data', async () => {
      const body = await registry.metrics();
      socket.end(`HTTP/1.1 200 OK\r\ncontent-type: ${registry.contentType}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    });
  }).listen(port, '127.0.0.1');
} else {
  require('node:http').createServer(async (req, res) => {
    const body = await registry.metrics();
    res.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }).listen(port, '127.0.0.1');
}

const stop = () => {
  setTimeout(() => { for (const w of Object.values(cluster.workers)) w.process.kill('SIGKILL'); process.exit(1); }, 5000).unref();
  cluster.disconnect(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
