// How far past its limit a fast-leaking worker gets before it is gone, first generation included:
// N workers of leaky-http.js leaking LEAK_MB_PER_SEC each from a timer (so the rate does not depend
// on the load), a limits.rss, keep-alive load on 127.0.0.1; the bench samples every worker's tree
// RSS every 100 ms itself (TreeSampler). A matrix of worker counts × leak rates, each run `--runs`
// times; every run reports its worst worker (the max), beside p50/p90 over all, and each recycle's
// delay from the crossing to the decision (negative: decided before the crossing, predicted).
// `--compare` adds legs with predictive replacement off.
//   node bench/overshoot.js [--quick] [--write] [--runs 3] [--workers 2,4] [--leak-mb 10,20] [--duration 20] [--max-rss 150mb] [--compare]
import fs from 'node:fs';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startNodesup, freePort, load, cleanupAll, scratch } from './lib/spawn.js';
import { TreeSampler } from './lib/sampler.js';
import { percentile, max, fx, int } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { parseSize } from '../src/units.js';

const opts = benchArgs({
  runs: { type: 'string', default: '3' }, workers: { type: 'string', default: '2,4' }, duration: { type: 'string' }, 'leak-mb': { type: 'string', default: '10,20' },
  'max-rss': { type: 'string', default: '150mb' }, connections: { type: 'string', default: '10' }, compare: { type: 'boolean', default: false },
}, 'node bench/overshoot.js [--quick] [--write] [--runs N] [--workers 2,4] [--leak-mb 10,20] [--duration S] [--max-rss SIZE] [--connections C] [--compare]');
const RUNS = Number(opts.quick ? 1 : opts.runs);
const DURATION = Number(opts.duration ?? (opts.quick ? 15 : 20));
const WORKERS = opts.workers.split(',').map(Number);
const RATES = opts['leak-mb'].split(',').map(Number);
const LIMIT = parseSize(opts['max-rss']);
const APP = path.join(ROOT, 'test/fixtures/apps/leaky-http.js');

async function leg({ predictive, workers, rate }) {
  const dir = scratch('nodesup-overshoot-');
  const config = path.join(dir, 'supervisor.config.mjs');
  fs.writeFileSync(config, `export default ${JSON.stringify({
    script: APP, workers, metrics: false, limits: { rss: opts['max-rss'] }, recycle: { predictive }, log: { format: 'json' },
  })};\n`);
  const port = await freePort();
  const run = startNodesup(['-c', config], { env: { PORT: String(port), LEAK_MB_PER_SEC: String(rate) }, cwd: dir });
  // The sampler starts with the supervisor: the first generation leaks from its first second.
  const sampler = new TreeSampler({ parentPid: run.pid, limit: LIMIT, intervalMs: 100 }).start();
  await run.waitReady(workers);
  const traffic = load({ url: `http://127.0.0.1:${port}/`, connections: Number(opts.connections), duration: DURATION });
  const r = await traffic.result;
  sampler.stop();
  await run.stop();
  // Workers that crossed the limit and are gone: peak over limit, and crossing → gone.
  const done = sampler.list().filter((w) => w.crossedAt !== null && w.goneAt !== null);
  const spares = run.events.filter((e) => e.event === 'recycle.skipped').length;
  const predicted = run.events.filter((e) => e.event === 'worker.recycle' && e.predictive).length;
  // Crossing → decision per recycled worker that crossed: the decision's time is its exit's less recycleMs.
  const decided = new Map(run.events.filter((e) => e.event === 'worker.exit' && e.recycleMs != null).map((e) => [e.pid, e.time - e.recycleMs]));
  const decideMs = sampler.list().filter((w) => w.crossedAt !== null && decided.has(w.pid)).map((w) => decided.get(w.pid) - w.crossedAt);
  // Every worker that lived, crossed or not: the worst one is the run's figure.
  const all = sampler.list().map((w) => w.peak / LIMIT);
  return {
    predictive, workers, rate, max: max(all), decideMs, peaks: done.map((w) => w.peak / LIMIT), goneMs: done.map((w) => w.goneAt - w.crossedAt),
    recycles: run.events.filter((e) => e.event === 'worker.recycle').length, predicted, spares, failed: r.failed, sent: r.sent,
    lateTicks: sampler.lateTicks, ticks: sampler.ticks,
  };
}

async function main() {
  const legs = [];
  for (let i = 0; i < RUNS; i++) {
    for (const workers of WORKERS) {
      for (const rate of RATES) {
        // Alternate the order so a machine that slows down over the run does not favour one side.
        for (const predictive of opts.compare ? (i % 2 ? [false, true] : [true, false]) : [true]) {
          const x = await leg({ predictive, workers, rate });
          process.stderr.write(`run ${i + 1} ${workers} workers ${rate} MB/s predictive=${predictive}: worst ${fx(x.max, 2)}×, ${x.peaks.length} crossings, failed ${x.failed}\n`);
          legs.push(x);
        }
      }
    }
  }
  const rows = [];
  for (const predictive of opts.compare ? [true, false] : [true]) {
    for (const workers of WORKERS) {
      for (const rate of RATES) {
        const mine = legs.filter((l) => l.predictive === predictive && l.workers === workers && l.rate === rate);
        const peaks = mine.flatMap((l) => l.peaks);
        const gone = mine.flatMap((l) => l.goneMs);
        const decide = mine.flatMap((l) => l.decideMs);
        rows.push([
          predictive ? 'on (default)' : 'off', workers, rate, mine.map((l) => `${fx(l.max, 2)}×`).join(' / '), peaks.length,
          peaks.length ? `${fx(percentile(peaks, 0.5), 2)}× / ${fx(percentile(peaks, 0.9), 2)}×` : '-',
          decide.length ? `${int(percentile(decide, 0.5))} / ${int(max(decide))}` : '-', gone.length ? `${int(percentile(gone, 0.5))} / ${int(max(gone))}` : '-',
          mine.reduce((a, l) => a + l.recycles, 0), mine.reduce((a, l) => a + l.predicted, 0), mine.reduce((a, l) => a + l.spares, 0),
          `${mine.reduce((a, l) => a + l.failed, 0)} of ${int(mine.reduce((a, l) => a + l.sent, 0))}`,
        ]);
      }
    }
  }
  const late = legs.reduce((a, l) => a + l.lateTicks, 0);
  const ticks = legs.reduce((a, l) => a + l.ticks, 0);
  const body = [
    `Workers of \`test/fixtures/apps/leaky-http.js\` leaking from a timer at the rate given, from their first second, \`limits.rss ${opts['max-rss']}\`, pollInterval 1s, other settings default; autocannon ${opts.connections} keep-alive connections × ${DURATION} s on 127.0.0.1; ${RUNS} runs of each row, each a fresh supervisor, so the first generation (every worker started and leaking at once, crossing together) is in every run. The bench samples every worker's process tree RSS every 100 ms itself from the supervisor's start (${late} of ${ticks} samples came late).`,
    '',
    table(['predictive', 'workers', 'MB/s each', 'worst worker of each run (tree peak / limit)', 'workers that crossed', 'their peak p50 / p90', 'crossing → decision ms p50 / max', 'crossing → gone ms p50 / max', 'recycles', 'of them predicted', 'spares retired', 'failed requests'], rows),
    '',
    'A crossing is the first 100 ms sample over the limit; "gone" the first sample the worker is no longer there; the decision is the recycle\'s (its exit\'s time less `recycleMs`), negative when it came before the crossing.',
  ].join('\n');
  publish(opts, 'overshoot', 'Overshoot of fast leaks: first generation included', body);
}

main().catch((err) => { process.stderr.write(`overshoot: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
