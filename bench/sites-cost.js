// What naming leak sites costs the app: the sampling heap profiler (V8's default 32 KiB interval)
// alone, and with the precise coverage nodesup runs beside it to undo inlining, against the same
// app with neither. One process per leg (bench/apps/profiled.js), legs alternating off, sampling,
// sites in every round; each leg: warm-up, then autocannon keep-alive load on 127.0.0.1.
//   node bench/sites-cost.js [--quick] [--write] [--rounds 5] [--duration 10] [--connections 10]
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { cleanupAll } from './lib/spawn.js';
import { appLeg } from './lib/app-leg.js';
import { mean, sd, min, max, fx, int, mib, ci95 } from './lib/stats.js';
import { publish, table } from './lib/results.js';

const opts = benchArgs({
  rounds: { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string', default: '10' },
}, 'node bench/sites-cost.js [--quick] [--write] [--rounds N] [--duration S] [--warmup S] [--connections C]');
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 2 : 5));
const DURATION = Number(opts.duration ?? (opts.quick ? 3 : 10));
const WARMUP = Number(opts.warmup ?? (opts.quick ? 1 : 3));
const CONNECTIONS = Number(opts.connections);
const APP = path.join(ROOT, 'bench/apps/profiled.js');
const MODES = ['off', 'sampling', 'sites'];

const leg = (mode) => appLeg({ app: APP, mode, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, read: 'profile', size: (p) => p.bytes ?? null });

const ci = ci95; // a 95 % interval of the mean of paired ratios

async function main() {
  const legs = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const mode of MODES) {
      const r = await leg(mode);
      legs.push({ ...r, round: i });
      process.stderr.write(`round ${i + 1}/${ROUNDS} ${mode}: ${int(r.reqPerSec)} req/s, p99 ${r.p99} ms, rss ${mib(r.rss)} MiB${r.profileMs !== null ? `, one profile ${fx(r.profileMs, 1)} ms / ${int(r.profileBytes)} B` : ''}\n`);
    }
  }
  const of = (mode) => legs.filter((l) => l.mode === mode);
  const ratio = (mode, key) => of(mode).map((l) => l[key] / of('off')[l.round][key]);
  const fmtCi = ([m, lo, hi], d = 3) => `${fx(m, d)} (${fx(lo, d)}–${fx(hi, d)})`;
  const rows = MODES.map((mode) => {
    const xs = of(mode);
    return [
      mode === 'off' ? 'off' : mode === 'sampling' ? 'sampling profiler alone' : 'sampling profiler + precise coverage (what nodesup runs)',
      int(mean(xs.map((l) => l.reqPerSec))), mode === 'off' ? '1' : fmtCi(ci(ratio(mode, 'reqPerSec'))),
      fx(mean(xs.map((l) => l.p99)), 1), mode === 'off' ? '1' : fmtCi(ci(ratio(mode, 'p99')), 2),
      mib(mean(xs.map((l) => l.rss))), mib(mean(xs.map((l) => l.heapUsed))),
      mode === 'off' ? '-' : `${fx(mean(xs.map((l) => l.profileMs)), 1)} (${fx(min(xs.map((l) => l.profileMs)), 1)}–${fx(max(xs.map((l) => l.profileMs)), 1)})`,
      xs.reduce((a, l) => a + l.failed, 0),
    ];
  });
  const body = [
    `\`bench/apps/profiled.js\` (a ~20 KiB JSON body of fresh objects per request, 1 MiB a minute retained), one process per leg; ${ROUNDS} rounds of off, sampling, sites in that order; each leg ${WARMUP} s warm-up then autocannon ${CONNECTIONS} keep-alive connections × ${DURATION} s on 127.0.0.1. Ratios are to the same round's off leg, mean and 95 % interval over the rounds. "one profile": reading and flattening a profile, as one confirmation point does, after the load.`,
    '',
    table(['profiler', 'req/s mean', 'req/s ÷ off', 'p99 ms mean', 'p99 ÷ off', 'RSS MiB', 'heap MiB', 'one profile, ms', 'failed'], rows),
  ].join('\n');
  publish(opts, 'sites-cost', 'Cost of naming leak sites (sampling heap profiler)', body);
}

main().catch((err) => { process.stderr.write(`sites-cost: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
