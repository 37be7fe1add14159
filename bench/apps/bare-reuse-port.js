// The limit the reuse-port bench compares against: a node:cluster primary that forks WORKERS
// workers, each of which listens on PORT itself with reusePort (Node 22.12+), and nothing else.
// cluster's 'listening' never reaches the primary for such a listen, so each worker says so over
// IPC, and the primary prints the same NDJSON readiness events as nodesup.
//   WORKERS=2 PORT=3000 node bench/apps/bare-reuse-port.js
import cluster from 'node:cluster';
import http from 'node:http';

const body = 'hello world\n';
if (cluster.isPrimary) {
  const n = Number(process.env.WORKERS ?? 2);
  const log = (fields) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
  log({ event: 'supervisor.start', primaryPid: process.pid, workers: n });
  for (let i = 0; i < n; i++) {
    const w = cluster.fork();
    log({ event: 'worker.spawn', slot: i, pid: w.process.pid });
    w.once('message', () => log({ event: 'worker.ready', slot: i, pid: w.process.pid }));
  }
  const stop = () => {
    setTimeout(() => { for (const w of Object.values(cluster.workers)) w.process.kill('SIGKILL'); process.exit(1); }, 5000).unref();
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
    cluster.on('exit', () => { if (!Object.keys(cluster.workers).length) process.exit(0); });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
    res.end(body);
  });
  server.listen({ port: Number(process.env.PORT), host: '127.0.0.1', reusePort: true }, () => process.send('listening'));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
