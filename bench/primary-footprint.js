// The primary's memory beside a bare node:cluster primary forking the same idle app: 8 workers,
// nodesup with its defaults and metrics on, scraped every second through the window (as Prometheus
// would, faster). Legs alternate bare, nodesup; each leg: fresh primary, every worker ready, settle,
// then the primary's RSS and PSS (smaps_rollup) averaged over the window. Target: nodesup ≤ 1.3× bare RSS.
//   node bench/primary-footprint.js [--quick] [--write] [--rounds 3] [--workers 8] [--window 20]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startPrimary, startNodesup, freePort, cleanupAll, scratch, delay } from './lib/spawn.js';
import { mean, sd, fx, mib } from './lib/stats.js';
import { publish, table } from './lib/results.js';

const opts = benchArgs({
  rounds: { type: 'string' }, workers: { type: 'string', default: '8' }, window: { type: 'string' }, settle: { type: 'string' },
}, 'node bench/primary-footprint.js [--quick] [--write] [--rounds N] [--workers N] [--window S] [--settle S]');
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 1 : 3));
const WORKERS = Number(opts.workers);
const WINDOW = Number(opts.window ?? (opts.quick ? 5 : 20));
const SETTLE = Number(opts.settle ?? (opts.quick ? 2 : 5));
const APP = path.join(ROOT, 'bench/apps/idle.js');
const BARE = path.join(ROOT, 'bench/apps/bare-primary.js');

function memory(pid) {
  const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('Rss'), pss: kb('Pss') };
}
const scrape = (port) => new Promise((resolve) => {
  http.get({ host: '127.0.0.1', port, path: '/metrics' }, (res) => { res.resume(); res.on('end', resolve); }).on('error', resolve);
});

async function leg(kind) {
  const env = { PORT: String(await freePort()), WORKERS: String(WORKERS) };
  const mport = await freePort();
  const run = kind === 'bare'
    ? startPrimary([BARE, APP], { env, cwd: scratch(), name: 'bare primary' })
    : startNodesup([APP, '-w', String(WORKERS), '--metrics', `127.0.0.1:${mport}`], { env });
  try {
    const start = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
    await run.waitReady(WORKERS, { timeout: 60_000 });
    await delay(SETTLE * 1000);
    const samples = [];
    for (let s = 0; s < WINDOW; s++) {
      if (kind === 'nodesup') await scrape(mport);
      samples.push(memory(start.primaryPid));
      await delay(1000);
    }
    return { kind, rss: mean(samples.map((x) => x.rss)), pss: mean(samples.map((x) => x.pss)) };
  } finally {
    await run.stop();
  }
}

async function main() {
  const legs = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of ['bare', 'nodesup']) {
      const r = await leg(kind);
      legs.push(r);
      process.stderr.write(`round ${i + 1}/${ROUNDS} ${kind}: RSS ${mib(r.rss)} MiB, PSS ${mib(r.pss)} MiB\n`);
    }
  }
  const of = (k) => legs.filter((l) => l.kind === k);
  const ratios = of('nodesup').map((l, i) => l.rss / of('bare')[i].rss);
  const row = (k, label) => [label, mib(mean(of(k).map((l) => l.rss))), mib(sd(of(k).map((l) => l.rss))), mib(mean(of(k).map((l) => l.pss)))];
  const ratio = mean(ratios);
  const body = [
    `${WORKERS} workers of \`bench/apps/idle.js\` under a bare node:cluster primary (\`bench/apps/bare-primary.js\`) and under nodesup (defaults, metrics on, /metrics scraped every second); ${ROUNDS} rounds, legs alternating; each leg: every worker ready, ${SETTLE} s settle, then the primary's RSS and PSS (smaps_rollup) averaged over ${WINDOW} s.`,
    '',
    table(['primary', 'RSS MiB (mean)', '± sd', 'PSS MiB (mean)'], [row('bare', 'bare node:cluster'), row('nodesup', 'nodesup')]),
    '',
    `**nodesup / bare RSS = ${fx(ratio, 2)}** (per round ${ratios.map((x) => fx(x, 2)).join(', ')}; target ≤ 1.3: ${ratio <= 1.3 ? 'met' : 'missed'}).`,
  ].join('\n');
  publish(opts, 'primary-footprint', "The primary's footprint beside a bare primary", body);
}

main().catch((err) => { process.stderr.write(`primary-footprint: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
