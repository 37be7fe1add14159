// The limit the overhead bench compares against: a node:cluster primary that forks WORKERS
// workers of the script and does nothing else (no sampling, no restarts, no metrics). It prints
// the same NDJSON readiness events as nodesup so the bench waits on events, not sleeps.
//   WORKERS=2 PORT=3000 node bench/apps/bare-primary.js bench/apps/hello.js
import cluster from 'node:cluster';

const n = Number(process.env.WORKERS ?? 2);
const log = (fields) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);

cluster.setupPrimary({ exec: process.argv[2], args: process.argv.slice(3) });
log({ event: 'supervisor.start', primaryPid: process.pid, workers: n });
for (let i = 0; i < n; i++) {
  const w = cluster.fork();
  log({ event: 'worker.spawn', slot: i, pid: w.process.pid });
  w.once('listening', () => log({ event: 'worker.ready', slot: i, pid: w.process.pid }));
}

const stop = () => {
  setTimeout(() => { for (const w of Object.values(cluster.workers)) w.process.kill('SIGKILL'); process.exit(1); }, 5000).unref();
  cluster.disconnect(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
