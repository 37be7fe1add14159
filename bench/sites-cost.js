// What naming leak sites costs the app: the sampling heap profiler (V8's default 32 KiB interval)
// alone, with V8's inlining off beside it (so small functions keep their frames), and as nodesup
// runs them (adaptive: inlining off, and the interval calibrated to the allocation rate when
// sampling starts under load), against the same app with none. One process per leg
// (bench/apps/profiled.js), legs alternating off, sampling, sites, adaptive, after in every round
// (the order reversed every other round);
// each leg: warm-up, then autocannon keep-alive load on 127.0.0.1.
//   node bench/sites-cost.js [--quick] [--write] [--rounds 5] [--duration 10] [--connections 10] [--modes adaptive]
//
// `--together`: every mode's process up at once for the whole run, warmed up once, then loaded in
// turns, a burst of --duration each, round after round. A leg a process of its own, 10 s after the
// one it is compared with, sees a shared host's speed swing by more than the few percent sought
// (30 sequential rounds: off ÷ off-ish pairs from 0.56 to 1.41); bursts seconds apart see the same
// host. The profiler then runs for the whole run, not the 20-60 s of a suspicion.
//   node bench/sites-cost.js --together --modes adaptive --rounds 40 --duration 3
//
// `--modes a,b`: only those legs beside off (sampling, sites, adaptive, after), so that the rounds
// a run can afford go to the ratio wanted: fewer legs a round, more rounds, a narrower interval.
//
// `after`: the profiler runs for 2 s from the first request of the warm-up and is stopped; the
// load measures the app as a suspicion that ended leaves it.
//
// `--old DIR`: sites, adaptive and after again in every round, with the profiler of the checkout at
// DIR (its src, in this app), so that a change to how sites are sampled is measured
// old against new in the same run: new ÷ old with its 95 % interval over the rounds.
//   node bench/sites-cost.js --old /tmp/nodesup-old [--rounds 10] [--write]
import os from 'node:os';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { cleanupAll, load } from './lib/spawn.js';
import { appLeg, appUp, appBurst, appRead } from './lib/app-leg.js';
import { mean, sd, min, max, fx, int, mib, ci95 } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { oldTree, ratioCi, ciText, OLD_USAGE } from './lib/versus.js';

const opts = benchArgs({
  rounds: { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string', default: '10' }, old: { type: 'string' }, modes: { type: 'string' }, together: { type: 'boolean', default: false },
}, `node bench/sites-cost.js [--quick] [--write] [--rounds N] [--duration S] [--warmup S] [--connections C] [--modes a,b] [--together] [--old DIR]\n  ${OLD_USAGE}`);
const OLD = opts.old ? oldTree(opts.old) : null;
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 2 : 5));
const DURATION = Number(opts.duration ?? (opts.quick ? 3 : 10));
const WARMUP = Number(opts.warmup ?? (opts.quick ? 1 : 3));
const CONNECTIONS = Number(opts.connections);
const APP = path.join(ROOT, 'bench/apps/profiled.js');
const CHOSEN = chosenModes(opts.modes);
// The modes whose profiler an old checkout can run, among those chosen.
const VERSUS = OLD ? CHOSEN.filter((m) => ['sites', 'adaptive', 'after'].includes(m)) : [];
const MODES = ['off', ...CHOSEN, ...VERSUS.map((m) => `${m}-old`)];
const LABEL = {
  off: 'off', sampling: 'sampling profiler alone (32 KiB)', sites: 'sampling profiler (32 KiB), inlining off',
  adaptive: 'sampling profiler, interval calibrated, inlining off (what nodesup runs)',
  after: 'after: profiler and inlining off for 2 s from the first request, then stopped',
  'sites-old': `sites (32 KiB) as ${OLD?.commit} runs it`,
  'adaptive-old': `adaptive as ${OLD?.commit} runs it`,
  'after-old': `after as ${OLD?.commit} runs it`,
};

/** The legs beside off: all four, or those `--modes` names (an unknown one is an error). */
function chosenModes(list) {
  const all = ['sampling', 'sites', 'adaptive', 'after'];
  if (!list) return all;
  const picked = list.split(',').map((m) => m.trim()).filter((m) => m && m !== 'off');
  const unknown = picked.filter((m) => !all.includes(m));
  if (unknown.length || !picked.length) {
    process.stderr.write(`--modes ${list}: ${unknown.length ? `unknown ${unknown.join(', ')}` : 'no leg named'}; choose from ${all.join(', ')}\n`);
    process.exit(2);
  }
  return all.filter((m) => picked.includes(m));
}

// An old leg runs this app with the old checkout's profiler, in the mode it is named for.
const isOld = (mode) => mode.endsWith('-old');
const READ = { read: 'profile', size: (p) => ({ bytes: p.bytes ?? null, interval: p.interval ?? null }) };
const appOf = (mode) => ({ app: APP, mode: mode.replace(/-old$/, ''), env: isOld(mode) ? { NODESUP_ROOT: OLD.root } : {} });
const leg = (mode) => appLeg({ ...appOf(mode), connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, ...READ });

const ci = ci95; // a 95 % interval of the mean of paired ratios
const TOGETHER = opts.together;
const orderOf = (i) => (i % 2 ? [...MODES].reverse() : MODES);
const said = (i, mode, r) => process.stderr.write(`round ${i + 1}/${ROUNDS} ${mode}: ${int(r.reqPerSec)} req/s, p99 ${r.p99} ms${r.rss ? `, rss ${mib(r.rss)} MiB` : ''}${r.profileMs != null ? `, one profile ${fx(r.profileMs, 1)} ms / ${int(r.profileBytes?.bytes)} B, interval ${int(r.profileBytes?.interval)} B` : ''}\n`);
const asLeg = (r, mode, round) => ({ ...r, mode, round, interval: r.profileBytes?.interval ?? null, profileBytes: r.profileBytes?.bytes ?? null });

/** A process per leg, round after round. */
async function sequential() {
  const legs = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const mode of orderOf(i)) {
      const r = await leg(mode);
      legs.push(asLeg(r, mode, i));
      said(i, mode, r);
    }
  }
  return legs;
}

/** A process per mode, up for the whole run, loaded in turns; memory and one profile read at the end. */
async function together() {
  const ups = {};
  try {
    for (const mode of MODES) ups[mode] = await appUp(appOf(mode));
    for (const mode of MODES) await load({ url: ups[mode].url, connections: CONNECTIONS, duration: WARMUP }).result;
    const bursts = [];
    for (let i = 0; i < ROUNDS; i++) {
      for (const mode of orderOf(i)) {
        const r = await appBurst(ups[mode], { connections: CONNECTIONS, duration: DURATION });
        bursts.push({ ...r, mode, round: i });
        said(i, mode, r);
      }
    }
    const read = {};
    for (const mode of MODES) read[mode] = await appRead(ups[mode], READ);
    return bursts.map((b) => asLeg({ ...b, ...read[b.mode] }, b.mode, b.round));
  } finally {
    for (const up of Object.values(ups)) await up.stop();
  }
}

async function main() {
  const legs = TOGETHER ? await together() : await sequential();
  const of = (mode) => legs.filter((l) => l.mode === mode);
  const ratio = (mode, key) => of(mode).map((l) => l[key] / of('off').find((o) => o.round === l.round)[key]);
  const versus = (mode, key) => ratioCi(of(`${mode}-old`).map((l) => l[key]), of(mode).map((l) => l[key])).ci;
  const fmtCi = ([m, lo, hi], d = 3) => `${fx(m, d)} (${fx(lo, d)}–${fx(hi, d)})`;
  const rows = MODES.map((mode) => {
    const xs = of(mode);
    return [
      LABEL[mode],
      int(mean(xs.map((l) => l.reqPerSec))), mode === 'off' ? '1' : fmtCi(ci(ratio(mode, 'reqPerSec'))),
      fx(mean(xs.map((l) => l.p99)), 1), mode === 'off' ? '1' : fmtCi(ci(ratio(mode, 'p99')), 2),
      mib(mean(xs.map((l) => l.rss))), mib(mean(xs.map((l) => l.heapUsed))),
      mode === 'off' || mode.startsWith('after') ? '-' : `${fx(mean(xs.map((l) => l.profileMs)), 1)} (${fx(min(xs.map((l) => l.profileMs)), 1)}–${fx(max(xs.map((l) => l.profileMs)), 1)})`,
      mode === 'off' || mode.startsWith('after') ? '-' : [...new Set(xs.map((l) => l.interval))].map((b) => `${int(b / 1024)} KiB`).join(', '),
      xs.reduce((a, l) => a + l.failed, 0),
    ];
  });
  const body = [
    `\`bench/apps/profiled.js\` (a ~20 KiB JSON body of fresh objects per request, 1 MiB a minute retained), ${TOGETHER ? `one process per mode, all up at once for the whole run (--together), warmed up once ${WARMUP} s each, then loaded in turns, ${DURATION} s bursts; RSS, heap and one profile read at the end of the run` : 'one process per leg'}; ${ROUNDS} rounds of ${MODES.join(', ')} (that order in odd rounds, reversed in even ones);${OLD ? ` the -old legs: the same app with the profiler of the checkout at ${OLD.commit} (--old);` : ''} after: the profiler started at the first request of the warm-up and stopped 2 s later, so the load measures the app as a suspicion leaves it; adaptive starts its profiler at the first request of the warm-up, so that its interval is calibrated under the load; ${TOGETHER ? 'each burst' : `each leg ${WARMUP} s warm-up then`} autocannon ${CONNECTIONS} keep-alive connections × ${DURATION} s on 127.0.0.1. Ratios are to the same round's off leg, mean and 95 % interval over the rounds. "one profile": reading and flattening a profile, as one confirmation point does, after the load.`,
    '',
    table(['profiler', 'req/s mean', 'req/s ÷ off', 'p99 ms mean', 'p99 ÷ off', 'RSS MiB', 'heap MiB', 'one profile, ms', 'sampling interval', 'failed'], rows),
    '',
    ...(VERSUS.length ? [...VERSUS.map((m) => `- **new ÷ old (${OLD.commit}), ${m}, req/s: ${ciText(versus(m, 'reqPerSec'))}; p99: ${ciText(versus(m, 'p99'), 2)}** (95 % intervals over the rounds).`), ''] : []),
    `Host load (1-minute load average) at the start: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs.`,
  ].join('\n');
  publish(opts, TOGETHER ? 'sites-cost-together' : 'sites-cost', 'Cost of naming leak sites (sampling heap profiler)', body);
}

main().catch((err) => { process.stderr.write(`sites-cost: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
