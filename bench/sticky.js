// The cost of balance: 'sticky' against cluster's round-robin: the same tiny HTTP app under nodesup
// both ways, alternating runs, on loopback. Two loads, each connection from its own loopback
// address so sticky spreads them over the workers as it would real clients: keep-alive connections
// (the primary routes a connection once) and one new connection per request (it routes every
// request, reading its first bytes): the worst case. The ratio is the mean of the pairs' ratios (each sticky
// run against the round-robin run just before it), with its 95 % interval; and the primary's CPU.
//   node bench/sticky.js [--quick] [--write] [--runs 5] [--duration 5] [--connections 32]
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startNodesup, freePort, cleanupAll, scratch, connLoad } from './lib/spawn.js';
import { cpuMeter } from './lib/proc.js';
import { mean, fx, int, ci95 } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import fs from 'node:fs';

const opts = benchArgs({
  runs: { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string', default: '32' }, workers: { type: 'string', default: '2' },
}, 'node bench/sticky.js [--quick] [--write] [--runs N] [--duration S] [--connections C] [--workers N]');
const RUNS = Number(opts.runs ?? (opts.quick ? 3 : 5));
const DURATION = Number(opts.duration ?? (opts.quick ? 3 : 5));
const CONNECTIONS = Number(opts.connections);
const WORKERS = Number(opts.workers);
const APP = path.join(ROOT, 'bench/apps/hello.js');
const MODES = ['round-robin', 'sticky'];
const LOADS = ['keep-alive', 'new connection per request'];

async function oneRun(balance) {
  const port = await freePort();
  const dir = scratch('nodesup-sticky-');
  const cfg = path.join(dir, 'sticky.config.mjs');
  fs.writeFileSync(cfg, `export default ${JSON.stringify({ workers: WORKERS, balance, metrics: false })};\n`);
  const run = startNodesup([APP, '-c', cfg, '--log-format', 'json'], { env: { PORT: String(port) } });
  try {
    const start = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
    await run.waitReady(WORKERS, { timeout: 60_000 });
    const url = `http://127.0.0.1:${port}/`;
    await connLoad({ url, connections: CONNECTIONS, duration: 1, keepAlive: true }); // warm-up, discarded
    const out = {};
    for (const kind of LOADS) {
      const cpu = cpuMeter(start.primaryPid);
      cpu.start();
      const r = await connLoad({ url, connections: CONNECTIONS, duration: DURATION, keepAlive: kind === 'keep-alive' });
      out[kind] = { reqPerSec: r.reqPerSec, failed: r.failed, primaryCpu: cpu.stop()?.percent ?? null };
    }
    return { balance, ...out };
  } finally {
    await run.stop();
  }
}

async function main() {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    for (const balance of MODES) {
      const r = await oneRun(balance);
      runs.push(r);
      process.stderr.write(`run ${i + 1}/${RUNS} ${balance}: ${LOADS.map((k) => `${k} ${fx(r[k].reqPerSec)} req/s (primary CPU ${fx(r[k].primaryCpu, 1)} %, failed ${r[k].failed})`).join('; ')}\n`);
    }
  }
  const of = (b) => runs.filter((r) => r.balance === b);
  const rows = [];
  const ratios = [];
  for (const kind of LOADS) {
    for (const b of MODES) {
      const xs = of(b).map((r) => r[kind]);
      rows.push([kind, b, xs.length, int(mean(xs.map((x) => x.reqPerSec))), fx(mean(xs.map((x) => x.primaryCpu)), 1), xs.reduce((a, x) => a + x.failed, 0)]);
    }
    const pairs = of('sticky').map((r, i) => r[kind].reqPerSec / of('round-robin')[i][kind].reqPerSec);
    const [m, lo, hi] = ci95(pairs);
    ratios.push(`${kind}: **sticky / round-robin = ${fx(m, 3)}, 95 % interval ${fx(lo, 3)}–${fx(hi, 3)}** over ${pairs.length} pairs`);
  }
  const body = [
    `\`bench/apps/hello.js\` under nodesup, ${WORKERS} workers, \`balance: 'round-robin'\` (cluster's default) against \`balance: 'sticky'\` (the primary accepts, reads each connection's first bytes, routes and hands it over); runs alternate; each run: fresh nodesup, 1 s warm-up, then ${CONNECTIONS} connections (each from its own 127.0.x.y) × ${DURATION} s of each load, from a separate process (\`bench/lib/conn-load.js\`).`,
    '',
    table(['load', 'balance', 'runs', 'req/s mean', 'primary CPU, % of a core', 'failed'], rows),
    '',
    ...ratios.map((r) => `- ${r}`),
  ].join('\n');
  publish(opts, 'sticky', 'Sticky sessions: cost against round-robin', body);
}

main().catch((err) => { process.stderr.write(`sticky: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
