// The figures of issue 21 for a socket.io app (test/fixtures/apps/socketio.js with the cluster
// adapter) under nodesup: clients on socket.io's default transports (long-polling first, then
// WebSocket, or `--transports`) send an acknowledged message every `--interval` ms (500) for `--duration` s; then a `nodesup reload`.
// Reported: transport-error closes, HTTP 400s, messages not acknowledged, each old worker's drain,
// forced kills and the reload's time. Run it once per `--balance` to compare.
//   node bench/socketio.js [--balance round-robin|sticky] [--workers 4] [--clients 4] [--duration 15] [--retries 0]
import fs from 'node:fs';
import path from 'node:path';
import { io } from 'socket.io-client';
import { benchArgs, ROOT } from './lib/args.js';
import { startNodesup, freePort, cleanupAll, scratch } from './lib/spawn.js';

const opts = benchArgs({
  balance: { type: 'string', default: 'round-robin' }, workers: { type: 'string', default: '4' }, clients: { type: 'string', default: '4' },
  duration: { type: 'string', default: '15' }, interval: { type: 'string', default: '500' }, retries: { type: 'string', default: '0' }, transports: { type: 'string', default: 'polling,websocket' },
}, 'node bench/socketio.js [--balance round-robin|sticky] [--workers N] [--clients N] [--duration S] [--retries N] [--transports polling,websocket] [--interval MS]');
const WORKERS = Number(opts.workers);
const APP = path.join(ROOT, 'test/fixtures/apps/socketio.js');

async function main() {
  const port = await freePort();
  const dir = scratch('nodesup-sio-');
  const cfg = path.join(dir, 'sio.config.mjs');
  fs.writeFileSync(cfg, `export default ${JSON.stringify({ workers: WORKERS, balance: opts.balance, metrics: false })};\n`);
  const run = startNodesup([APP, '-c', cfg], { env: { PORT: String(port), SOCKETIO_CLUSTER: '1' } });
  await run.waitReady(WORKERS, { timeout: 60_000 });
  const stats = { transportErrors: 0, http400: 0, sent: 0, acked: 0, lost: 0 };
  const retries = Number(opts.retries);
  const sockets = Array.from({ length: Number(opts.clients) }, () => {
    const s = io(`http://127.0.0.1:${port}`, { transports: opts.transports.split(','), ackTimeout: 2000, ...(retries ? { retries } : {}) });
    s.on('disconnect', (reason, d) => { if (reason === 'transport error') stats.transportErrors++; if (d?.description === 400) stats.http400++; });
    // A 400 while connecting is a connect_error; once connected, a disconnect: counted once.
    s.on('connect_error', (e) => { if (e?.description === 400 && !s.connected) stats.http400++; });
    return s;
  });
  let stopped = false;
  const senders = sockets.map(async (s) => {
    while (!stopped) {
      stats.sent++;
      const ok = await s.timeout(retries ? 60_000 : 2000).emitWithAck('echo', stats.sent).then(() => true, () => false);
      if (ok) stats.acked++;
      else stats.lost++;
      await new Promise((r) => setTimeout(r, Number(opts.interval)));
    }
  });
  await new Promise((r) => setTimeout(r, Number(opts.duration) * 1000));
  const steady = { ...stats };
  const old = new Set(run.events.filter((e) => e.event === 'worker.ready').map((e) => e.pid));
  const t0 = Date.now();
  await run.cli(['reload']);
  const reloadMs = Date.now() - t0;
  await new Promise((r) => setTimeout(r, 3000)); // clients reconnect, last acks come back
  stopped = true;
  await Promise.all(senders);
  for (const s of sockets) s.disconnect();
  const exits = run.events.filter((e) => e.event === 'worker.exit' && old.has(e.pid));
  const out = {
    balance: opts.balance, workers: WORKERS, clients: sockets.length, durationS: Number(opts.duration), retries,
    steady, throughReload: { ...stats }, reloadMs, drainMs: exits.map((e) => e.drainMs), forced: exits.filter((e) => e.forced).length,
    heldBy: exits.filter((e) => e.heldBy).map((e) => e.heldBy),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
  await run.stop();
}

main().catch((err) => { process.stderr.write(`socketio: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
