// The cost of balance: 'sticky' against cluster's round-robin: the same tiny HTTP app under nodesup
// both ways, alternating runs, on loopback. Two loads, each connection from its own loopback
// address so sticky spreads them over the workers as it would real clients: keep-alive connections
// (the primary routes a connection once) and one new connection per request (it routes every
// request, reading its first bytes): the worst case. The ratio is the mean of the pairs' ratios (each sticky
// run against the round-robin run just before it), with its 95 % interval; and the primary's CPU,
// with the CPU a request of the primary and of the workers, so that a gap is placed where it is spent.
//
// `--old DIR`: sticky from another checkout against this one's in the same run. Each round runs
// round-robin (this checkout), then old and new sticky in turns; reported: new ÷ old throughput
// and primary CPU per load with their 95 % intervals, and each against its round's round-robin.
// Written as its own section, sticky-vs-old.
//   node bench/sticky.js [--quick] [--write] [--runs 5] [--duration 5] [--connections 32] [--old DIR]
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startNodesup, freePort, cleanupAll, scratch, connLoad } from './lib/spawn.js';
import { clusterCpuMeter } from './lib/proc.js';
import { mean, fx, int, ci95 } from './lib/stats.js';
import { oldTree, pairOrder, ratioCi, ciText, verdict, OLD_USAGE } from './lib/versus.js';
import { publish, table } from './lib/results.js';
import fs from 'node:fs';

const opts = benchArgs({
  runs: { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string', default: '32' }, workers: { type: 'string', default: '2' },
  old: { type: 'string' },
}, `node bench/sticky.js [--quick] [--write] [--runs N] [--duration S] [--connections C] [--workers N] [--old DIR]\n  ${OLD_USAGE}`);
const OLD = opts.old ? oldTree(opts.old) : null;
const RUNS = Number(opts.runs ?? (opts.quick ? 3 : 5));
const DURATION = Number(opts.duration ?? (opts.quick ? 3 : 5));
const CONNECTIONS = Number(opts.connections);
const WORKERS = Number(opts.workers);
const APP = path.join(ROOT, 'bench/apps/hello.js');
const MODES = ['round-robin', 'sticky'];
const LOADS = ['keep-alive', 'new connection per request'];

/** One run of `balance` under the checkout at `root`. */
async function oneRun(balance, root = ROOT) {
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
      // The CPU a request says where a sticky request's extra cost is spent.
      const cpu = clusterCpuMeter(start.primaryPid);
      cpu.start();
      const r = await connLoad({ url, connections: CONNECTIONS, duration: DURATION, keepAlive: kind === 'keep-alive' });
      out[kind] = { reqPerSec: r.reqPerSec, failed: r.failed, ...cpu.stop(r.requests) };
    }
    return { balance, ...out };
  } finally {
    await run.stop();
  }
}

async function main() {
  if (OLD) return versusOld();
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
      rows.push([kind, b, xs.length, int(mean(xs.map((x) => x.reqPerSec))), fx(mean(xs.map((x) => x.primaryCpu)), 1),
        usText(xs.map((x) => x.primaryUs)), usText(xs.map((x) => x.workersUs)), xs.reduce((a, x) => a + x.failed, 0)]);
    }
    const pairs = of('sticky').map((r, i) => r[kind].reqPerSec / of('round-robin')[i][kind].reqPerSec);
    const [m, lo, hi] = ci95(pairs);
    const extra = (f) => extraUs(of('round-robin').map((r) => r[kind][f]), of('sticky').map((r) => r[kind][f]));
    ratios.push(`${kind}: **sticky / round-robin = ${fx(m, 3)}, 95 % interval ${fx(lo, 3)}–${fx(hi, 3)}** over ${pairs.length} pairs; CPU a request, sticky − round-robin: primary ${extra('primaryUs')} µs, workers ${extra('workersUs')} µs`);
  }
  const body = [
    `\`bench/apps/hello.js\` under nodesup, ${WORKERS} workers, \`balance: 'round-robin'\` (cluster's default) against \`balance: 'sticky'\` (the primary accepts, reads each connection's first bytes, routes and hands it over); runs alternate; each run: fresh nodesup, 1 s warm-up, then ${CONNECTIONS} connections (each from its own 127.0.x.y) × ${DURATION} s of each load, from a separate process (\`bench/lib/conn-load.js\`).`,
    '',
    table(['load', 'balance', 'runs', 'req/s mean', 'primary CPU, % of a core', 'primary CPU a request, µs', 'workers\' CPU a request, µs', 'failed'], rows),
    '',
    ...ratios.map((r) => `- ${r}`),
  ].join('\n');
  publish(opts, 'sticky', 'Sticky sessions: cost against round-robin', body);
}

const usText = (xs) => (xs.includes(null) ? '-' : fx(mean(xs), 1));

// The mean of the pairs' differences (b − a, each pair a round), with its 95 % interval, as text.
function extraUs(a, b) {
  if (a.includes(null) || b.includes(null)) return 'unknown';
  return ciText(ci95(b.map((x, i) => x - a[i])), 1);
}

async function versusOld() {
  const runs = { 'round-robin': [], old: [], new: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const kind of ['round-robin', ...pairOrder(i)]) {
      const r = await oneRun(kind === 'round-robin' ? 'round-robin' : 'sticky', kind === 'old' ? OLD.root : ROOT);
      runs[kind].push(r);
      process.stderr.write(`round ${i + 1}/${RUNS} ${kind}: ${LOADS.map((k) => `${k} ${fx(r[k].reqPerSec)} req/s (primary CPU ${fx(r[k].primaryCpu, 1)} %, failed ${r[k].failed})`).join('; ')}\n`);
    }
  }
  const label = { 'round-robin': 'round-robin (this checkout)', old: `sticky, old (${OLD.commit})`, new: 'sticky, new (this checkout)' };
  const rows = [];
  const lines = [];
  for (const load of LOADS) {
    const of = (kind, f) => runs[kind].map((r) => r[load][f]);
    for (const kind of ['round-robin', 'old', 'new']) {
      rows.push([load, label[kind], runs[kind].length, int(mean(of(kind, 'reqPerSec'))), fx(mean(of(kind, 'primaryCpu')), 1), of(kind, 'failed').reduce((a, n) => a + n, 0)]);
    }
    const thr = ratioCi(of('old', 'reqPerSec'), of('new', 'reqPerSec'));
    const cpu = ratioCi(of('old', 'primaryCpu'), of('new', 'primaryCpu'));
    const vsRr = (kind) => ciText(ratioCi(of('round-robin', 'reqPerSec'), of(kind, 'reqPerSec')).ci);
    lines.push(`- ${load}: **new ÷ old throughput = ${ciText(thr.ci)}**, ${verdict(thr, { better: 'higher' })}; primary CPU new ÷ old ${ciText(cpu.ci)}; against round-robin: old ${vsRr('old')}, new ${vsRr('new')} (target ≥ 0.9)`);
  }
  const body = [
    `Old: DIR is a checkout of nodesup at ${OLD.commit} (\`git worktree add DIR <commit>\`, then \`npm ci\` inside it); new: this checkout.`,
    '',
    `\`bench/apps/hello.js\` under nodesup, ${WORKERS} workers: ${RUNS} rounds of \`balance: 'round-robin'\` (this checkout), then \`balance: 'sticky'\` from the old checkout and from this one (old first in odd-numbered rounds, new first in even ones); each run: fresh nodesup, 1 s warm-up, then ${CONNECTIONS} connections (each from its own 127.0.x.y) × ${DURATION} s of each load, from a separate process (\`bench/lib/conn-load.js\`). Ratios: the mean of the rounds' ratios, with its 95 % interval.`,
    '',
    table(['load', 'balance', 'runs', 'req/s mean', 'primary CPU, % of a core', 'failed'], rows),
    '',
    ...lines,
  ].join('\n');
  publish(opts, 'sticky-vs-old', `Sticky sessions, old (${OLD.commit}) against new`, body);
}

main().catch((err) => { process.stderr.write(`sticky: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
