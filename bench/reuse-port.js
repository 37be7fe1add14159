// balance: 'reuse-port' against round-robin with a new connection per request, the load where
// round-robin's primary is in every connection's path. Four legs per round and worker count,
// in turns: a bare cluster (round-robin), a bare cluster whose workers listen with reusePort (the
// limit), nodesup round-robin, nodesup reuse-port. Ratios are the mean of the rounds' ratios with
// their 95 % interval.
//
// --drain adds the reason for the fallback: nodesup with its workers made to listen with
// reusePort (NODESUP_BALANCE in the workers' env, past the start's check) through memory recycles
// under the same load, with net.ipv4.tcp_migrate_req 1 and then 0: failed requests of each.
//   node bench/reuse-port.js [--quick] [--write] [--rounds 5] [--duration 5] [--workers 2,8] [--drain]
// Needs Node 22.12+ and permission to write net.ipv4.tcp_migrate_req (root); it is put back after.
import fs from 'node:fs';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startPrimary, startNodesup, freePort, cleanupAll, scratch, atExit, connLoad } from './lib/spawn.js';
import { cpuMeter } from './lib/proc.js';
import { mean, fx, int, ci95 } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { readMigrateReq } from '../src/proc/listeners.js';

const opts = benchArgs({
  rounds: { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string', default: '32' },
  workers: { type: 'string', default: '2,8' }, drain: { type: 'boolean', default: false },
}, 'node bench/reuse-port.js [--quick] [--write] [--rounds N] [--duration S] [--connections C] [--workers 2,8] [--drain]');
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 2 : 5));
const DURATION = Number(opts.duration ?? (opts.quick ? 2 : 5));
const CONNECTIONS = Number(opts.connections);
const COUNTS = opts.workers.split(',').map(Number);
const HELLO = path.join(ROOT, 'bench/apps/hello.js');
const LEAKY = path.join(ROOT, 'test/fixtures/apps/leaky-http.js');
const BARE = path.join(ROOT, 'bench/apps/bare-primary.js');
const BARE_REUSE = path.join(ROOT, 'bench/apps/bare-reuse-port.js');
const MIGRATE = '/proc/sys/net/ipv4/tcp_migrate_req';
const LEGS = ['bare round-robin', 'bare reusePort', 'nodesup round-robin', 'nodesup reuse-port'];

function setMigrate(v) {
  fs.writeFileSync(MIGRATE, String(v));
}

function start(leg, workers, port, { app = HELLO, config = {}, env = {} } = {}) {
  const penv = { PORT: String(port), WORKERS: String(workers), ...env };
  if (leg === 'bare round-robin') return startPrimary([BARE, app], { env: penv, cwd: scratch(), name: leg });
  if (leg === 'bare reusePort') return startPrimary([BARE_REUSE], { env: penv, cwd: scratch(), name: leg });
  const dir = scratch('nodesup-reuse-port-');
  const cfg = path.join(dir, 'bench.config.mjs');
  const balance = leg === 'nodesup reuse-port' ? 'reuse-port' : 'round-robin';
  fs.writeFileSync(cfg, `export default ${JSON.stringify({ workers, balance, metrics: false, ...config })};\n`);
  return startNodesup([app, '-c', cfg, '--log-format', 'json'], { env: penv });
}

async function oneLeg(leg, workers) {
  const port = await freePort();
  const run = start(leg, workers, port);
  try {
    const started = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
    await run.waitReady(workers, { timeout: 60_000 });
    if (leg === 'nodesup reuse-port' && run.events.some((e) => e.event === 'config.default')) throw new Error('nodesup fell back to round-robin: is tcp_migrate_req 1?');
    const url = `http://127.0.0.1:${port}/`;
    await connLoad({ url, connections: CONNECTIONS, duration: 1 }); // warm-up, discarded
    const cpu = cpuMeter(started.primaryPid);
    cpu.start();
    const r = await connLoad({ url, connections: CONNECTIONS, duration: DURATION });
    return { leg, workers, reqPerSec: r.reqPerSec, failed: r.failed, primaryCpu: cpu.stop()?.percent ?? null };
  } finally {
    await run.stop();
  }
}

// Memory recycles every few seconds under a new connection per request, the workers listening with
// reusePort whatever the host says: what the fallback saves.
async function drainLeg(migrate, workers) {
  setMigrate(migrate);
  const port = await freePort();
  const run = start('nodesup round-robin', workers, port, {
    app: LEAKY, env: { LEAK_KB: '8' },
    config: { env: { NODESUP_BALANCE: 'reuse-port' }, limits: { rss: '120mb' }, leak: false, pollInterval: '500ms', recycle: { killTimeout: '20s' } },
  });
  try {
    await run.waitReady(workers, { timeout: 60_000 });
    const r = await connLoad({ url: `http://127.0.0.1:${port}/`, connections: CONNECTIONS, duration: DURATION * 4 });
    const recycles = run.events.filter((e) => e.event === 'worker.recycle').length;
    return { migrate, requests: r.requests, failed: r.failed, why: r.why, recycles };
  } finally {
    await run.stop();
  }
}

function throughputBody(runs) {
  const rows = [];
  const ratios = [];
  for (const w of COUNTS) {
    for (const leg of LEGS) {
      const xs = runs.filter((r) => r.workers === w && r.leg === leg);
      rows.push([w, leg, xs.length, int(mean(xs.map((x) => x.reqPerSec))), fx(mean(xs.map((x) => x.primaryCpu)), 1), xs.reduce((a, x) => a + x.failed, 0)]);
    }
    const of = (leg) => runs.filter((r) => r.workers === w && r.leg === leg).map((r) => r.reqPerSec);
    const ratio = (a, b) => {
      const [m, lo, hi] = ci95(of(a).map((x, i) => x / of(b)[i]));
      return `${fx(m, 3)} (95 % interval ${fx(lo, 3)}–${fx(hi, 3)})`;
    };
    ratios.push(`${w} workers: **nodesup reuse-port ÷ nodesup round-robin = ${ratio('nodesup reuse-port', 'nodesup round-robin')}**; nodesup reuse-port ÷ bare reusePort = ${ratio('nodesup reuse-port', 'bare reusePort')}; bare reusePort ÷ bare round-robin = ${ratio('bare reusePort', 'bare round-robin')}; nodesup round-robin ÷ bare round-robin = ${ratio('nodesup round-robin', 'bare round-robin')}`);
  }
  return [
    `\`bench/apps/hello.js\` with a new connection per request (${CONNECTIONS} loops, each from its own 127.0.x.y, \`bench/lib/conn-load.js\` in a process of its own) for ${DURATION} s after a 1 s warm-up, under four primaries in turns, ${ROUNDS} rounds per worker count: a bare node:cluster primary (round-robin), a bare cluster whose workers listen with \`reusePort\` (\`bench/apps/bare-reuse-port.js\`: the limit), nodesup with \`balance: 'round-robin'\` and with \`balance: 'reuse-port'\` (metrics off, defaults otherwise). net.ipv4.tcp_migrate_req 1 during the run. Primary CPU: utime+stime over the load, % of one core.`,
    '',
    table(['workers', 'primary', 'runs', 'req/s mean', 'primary CPU, % of a core', 'failed'], rows),
    '',
    ...ratios.map((r) => `- ${r}`),
  ].join('\n');
}

function drainBody(drains) {
  const rows = drains.map((d) => [d.migrate, d.recycles, int(d.requests), d.failed, JSON.stringify(d.why)]);
  return [
    '',
    `**Why round-robin where tcp_migrate_req is 0.** nodesup, 2 workers of \`test/fixtures/apps/leaky-http.js\` (8 KiB retained per request, \`limits.rss\` 120 MB, so memory recycles every few seconds), its workers made to listen with reusePort whatever the host says (\`NODESUP_BALANCE=reuse-port\` in the config's \`env\`), the same new-connection-per-request load for ${DURATION * 4} s, once per setting:`,
    '',
    table(['tcp_migrate_req', 'recycles', 'requests ok', 'failed', 'failures by kind'], rows),
  ].join('\n');
}

async function main() {
  const before = readMigrateReq();
  atExit(() => { if (before !== null) setMigrate(before); });
  setMigrate(1);
  const runs = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const w of COUNTS) {
      // Rotate the order each round, so no leg always follows the same one.
      const order = LEGS.map((_, i) => LEGS[(i + round) % LEGS.length]);
      for (const leg of order) {
        const r = await oneLeg(leg, w);
        runs.push(r);
        process.stderr.write(`round ${round + 1}/${ROUNDS}, ${w} workers, ${leg}: ${fx(r.reqPerSec)} req/s, primary CPU ${fx(r.primaryCpu, 1)} %, failed ${r.failed}\n`);
      }
    }
  }
  let body = throughputBody(runs);
  if (opts.drain) {
    const drains = [];
    for (const migrate of [1, 0]) {
      const d = await drainLeg(migrate, 2);
      drains.push(d);
      process.stderr.write(`drain, tcp_migrate_req ${migrate}: ${d.recycles} recycles, ${d.requests} ok, ${d.failed} failed ${JSON.stringify(d.why)}\n`);
    }
    body += `\n${drainBody(drains)}`;
  }
  publish(opts, 'reuse-port', "balance: 'reuse-port' against round-robin, a new connection per request", body);
}

main().catch((err) => { process.stderr.write(`reuse-port: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
