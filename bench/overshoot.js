// How far past its limit a fast-leaking worker gets before it is gone: predictive replacement on
// (the default) against off, in alternating legs of one run. 2 workers of leaky-http.js leaking
// LEAK_MB_PER_SEC from a timer (so the rate does not depend on the load), a limits.rss, keep-alive
// load on 127.0.0.1; the bench samples every worker's tree RSS every 100 ms itself (TreeSampler).
//   node bench/overshoot.js [--quick] [--write] [--legs 4] [--duration 30] [--leak-mb 20] [--max-rss 150mb]
import fs from 'node:fs';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startNodesup, freePort, load, cleanupAll, scratch } from './lib/spawn.js';
import { TreeSampler } from './lib/sampler.js';
import { percentile, max, fx, int } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { parseSize } from '../src/units.js';

const opts = benchArgs({
  legs: { type: 'string', default: '4' }, duration: { type: 'string' }, 'leak-mb': { type: 'string', default: '20' },
  'max-rss': { type: 'string', default: '150mb' }, connections: { type: 'string', default: '10' },
}, 'node bench/overshoot.js [--quick] [--write] [--legs N] [--duration S] [--leak-mb MB] [--max-rss SIZE] [--connections C]');
const LEGS = Number(opts.quick ? 2 : opts.legs);
const DURATION = Number(opts.duration ?? (opts.quick ? 15 : 30));
const LIMIT = parseSize(opts['max-rss']);
const APP = path.join(ROOT, 'test/fixtures/apps/leaky-http.js');

async function leg(predictive) {
  const dir = scratch('nodesup-overshoot-');
  const config = path.join(dir, 'supervisor.config.mjs');
  fs.writeFileSync(config, `export default ${JSON.stringify({
    script: APP, workers: 2, metrics: false, limits: { rss: opts['max-rss'] }, recycle: { predictive }, log: { format: 'json' },
  })};\n`);
  const port = await freePort();
  const run = startNodesup(['-c', config], { env: { PORT: String(port), LEAK_MB_PER_SEC: opts['leak-mb'] }, cwd: dir });
  await run.waitReady(2);
  const sampler = new TreeSampler({ parentPid: run.pid, limit: LIMIT, intervalMs: 100 }).start();
  const traffic = load({ url: `http://127.0.0.1:${port}/`, connections: Number(opts.connections), duration: DURATION });
  const r = await traffic.result;
  sampler.stop();
  await run.stop();
  // Workers that crossed the limit and are gone: peak over limit, and crossing → gone.
  const done = sampler.list().filter((w) => w.crossedAt !== null && w.goneAt !== null);
  const spares = run.events.filter((e) => e.event === 'recycle.skipped').length;
  const predicted = run.events.filter((e) => e.event === 'worker.recycle' && e.predictive).length;
  return {
    predictive, peaks: done.map((w) => w.peak / LIMIT), goneMs: done.map((w) => w.goneAt - w.crossedAt),
    recycles: run.events.filter((e) => e.event === 'worker.recycle').length, predicted, spares, failed: r.failed, sent: r.sent,
    lateTicks: sampler.lateTicks, ticks: sampler.ticks,
  };
}

async function main() {
  const legs = [];
  for (let i = 0; i < LEGS; i++) {
    // Alternate the order so a machine that slows down over the run does not favour one side.
    for (const predictive of i % 2 ? [false, true] : [true, false]) {
      const x = await leg(predictive);
      process.stderr.write(`leg ${legs.length + 1} predictive=${predictive}: ${x.peaks.length} crossings, peak max ${fx(max(x.peaks), 2)}×, failed ${x.failed}\n`);
      legs.push(x);
    }
  }
  const rows = [true, false].map((predictive) => {
    const mine = legs.filter((l) => l.predictive === predictive);
    const peaks = mine.flatMap((l) => l.peaks);
    const gone = mine.flatMap((l) => l.goneMs);
    return [
      predictive ? 'on (default)' : 'off', mine.length, peaks.length, `${fx(percentile(peaks, 0.5), 2)}× / ${fx(percentile(peaks, 0.9), 2)}× / ${fx(max(peaks), 2)}×`,
      `${int(percentile(gone, 0.5))} / ${int(max(gone))}`, mine.reduce((a, l) => a + l.recycles, 0), mine.reduce((a, l) => a + l.predicted, 0),
      mine.reduce((a, l) => a + l.spares, 0), `${mine.reduce((a, l) => a + l.failed, 0)} of ${int(mine.reduce((a, l) => a + l.sent, 0))}`,
    ];
  });
  const late = legs.reduce((a, l) => a + l.lateTicks, 0);
  const ticks = legs.reduce((a, l) => a + l.ticks, 0);
  const body = [
    `2 workers of \`test/fixtures/apps/leaky-http.js\` leaking ${opts['leak-mb']} MB/s each from a timer, \`limits.rss ${opts['max-rss']}\`, pollInterval 1s, other settings default; autocannon ${opts.connections} keep-alive connections × ${DURATION} s on 127.0.0.1; ${LEGS} legs each of predictive replacement on and off, alternating. The bench samples every worker's process tree RSS every 100 ms itself (${late} of ${ticks} samples came late).`,
    '',
    table(['predictive', 'legs', 'workers that crossed', 'tree peak / limit p50 / p90 / max', 'crossing → gone ms p50 / max', 'recycles', 'of them predicted', 'spares retired', 'failed requests'], rows),
    '',
    'A crossing is the first 100 ms sample over the limit; "gone" the first sample the worker is no longer there.',
  ].join('\n');
  publish(opts, 'overshoot', 'Overshoot of fast leaks: predictive replacement', body);
}

main().catch((err) => { process.stderr.write(`overshoot: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
