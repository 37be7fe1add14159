// What naming Buffer leak sites costs the app: the Buffer sampler (128 KiB mean interval) against the
// same app without it, on an app whose every request is Buffer work (bench/apps/buffered.js: ~35 KiB
// of Buffers in 18 allocations a request). One process per leg, legs alternating off, sampling in
// every round; each leg: warm-up, then autocannon keep-alive load on 127.0.0.1.
//   node bench/buffer-sampler-cost.js [--quick] [--write] [--rounds 5] [--duration 10] [--connections 10]
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { cleanupAll } from './lib/spawn.js';
import { appLeg } from './lib/app-leg.js';
import { mean, sd, min, max, fx, int, mib, ci95 } from './lib/stats.js';
import { publish, table } from './lib/results.js';

const opts = benchArgs({
  rounds: { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string', default: '10' },
}, 'node bench/buffer-sampler-cost.js [--quick] [--write] [--rounds N] [--duration S] [--warmup S] [--connections C]');
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 2 : 5));
const DURATION = Number(opts.duration ?? (opts.quick ? 3 : 10));
const WARMUP = Number(opts.warmup ?? (opts.quick ? 1 : 3));
const CONNECTIONS = Number(opts.connections);
const APP = path.join(ROOT, 'bench/apps/buffered.js');
const MODES = ['off', 'sampling'];

const leg = (mode) => appLeg({ app: APP, mode, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, read: 'table', size: (p) => p.sites ?? null });

const ci = ci95; // a 95 % interval of the mean of paired ratios

async function main() {
  const legs = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const mode of MODES) {
      const r = await leg(mode);
      legs.push({ ...r, round: i });
      process.stderr.write(`round ${i + 1}/${ROUNDS} ${mode}: ${int(r.reqPerSec)} req/s, p99 ${r.p99} ms, rss ${mib(r.rss)} MiB${r.profileMs !== null ? `, one table read ${fx(r.profileMs, 2)} ms / ${int(r.profileBytes)} sites` : ''}\n`);
    }
  }
  const of = (mode) => legs.filter((l) => l.mode === mode);
  const ratio = (mode, key) => of(mode).map((l) => l[key] / of('off')[l.round][key]);
  const fmtCi = ([m, lo, hi], d = 3) => `${fx(m, d)} (${fx(lo, d)}–${fx(hi, d)})`;
  const rows = MODES.map((mode) => {
    const xs = of(mode);
    return [
      mode === 'off' ? 'off' : 'Buffer sampler (what nodesup runs during an external suspicion)',
      int(mean(xs.map((l) => l.reqPerSec))), mode === 'off' ? '1' : fmtCi(ci(ratio(mode, 'reqPerSec'))),
      fx(mean(xs.map((l) => l.p99)), 1), mode === 'off' ? '1' : fmtCi(ci(ratio(mode, 'p99')), 2),
      mib(mean(xs.map((l) => l.rss))), mib(mean(xs.map((l) => l.heapUsed))),
      mode === 'off' ? '-' : `${fx(mean(xs.map((l) => l.profileMs)), 2)} (${fx(min(xs.map((l) => l.profileMs)), 2)}–${fx(max(xs.map((l) => l.profileMs)), 2)})`,
      xs.reduce((a, l) => a + l.failed, 0),
    ];
  });
  const body = [
    `\`bench/apps/buffered.js\` (a ~35 KiB body from 18 Buffer allocations per request, 1 MiB of Buffers a minute retained), one process per leg; ${ROUNDS} rounds of off, sampling in that order; each leg ${WARMUP} s warm-up then autocannon ${CONNECTIONS} keep-alive connections × ${DURATION} s on 127.0.0.1. Ratios are to the same round's off leg, mean and 95 % interval over the rounds. "one table read": the sampler's retained table read, as one confirmation point does, after the load.`,
    '',
    table(['sampler', 'req/s mean', 'req/s ÷ off', 'p99 ms mean', 'p99 ÷ off', 'RSS MiB', 'heap MiB', 'one table read, ms', 'failed'], rows),
  ].join('\n');
  publish(opts, 'buffer-sampler-cost', 'Cost of naming Buffer leak sites (Buffer sampler)', body);
}

main().catch((err) => { process.stderr.write(`buffer-sampler-cost: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
