// Detection latency: how long after a worker's RSS first crosses its limit does nodesup decide to
// recycle it, and when is the old worker gone? The bench samples every worker's tree RSS from
// /proc itself every 100 ms (workers = children of the primary; their children included) and
// takes the decision and exit times from the NDJSON events. Measured with gcBeforeRecycle on
// (a full GC is tried first) and off. Target: crossing → decision ≤ one poll interval + 100 ms.
//   node bench/detection-latency.js [--quick] [--write] [--recycles 12] [--poll-interval 1s]
import fs from 'node:fs';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startNodesup, freePort, cleanupAll, scratch } from './lib/spawn.js';
import { TreeSampler } from './lib/sampler.js';
import { percentile, fx, mib } from './lib/stats.js';
import { publish, table } from './lib/results.js';

const opts = benchArgs({
  recycles: { type: 'string' }, 'poll-interval': { type: 'string', default: '1s' }, 'max-rss': { type: 'string', default: '200mb' },
  'leak-mb-per-sec': { type: 'string', default: '25' }, workers: { type: 'string', default: '1' },
}, 'node bench/detection-latency.js [--quick] [--write] [--recycles N] [--poll-interval D] [--max-rss SIZE] [--leak-mb-per-sec N] [--workers N]');
const RECYCLES = Number(opts.recycles ?? (opts.quick ? 3 : 12));
const WORKERS = Number(opts.workers);
const APP = path.join(ROOT, 'test/fixtures/apps/leaky-http.js');

async function measure(gcBeforeRecycle) {
  const dir = scratch();
  const config = path.join(dir, 'bench.config.mjs');
  fs.writeFileSync(config, `export default ${JSON.stringify({
    workers: WORKERS, pollInterval: opts['poll-interval'], limits: { rss: opts['max-rss'] },
    leak: false, // every recycle is then an rss-limit recycle, the thing measured
    gcBeforeRecycle, metrics: false, log: { format: 'json' },
  }, null, 2)};\n`);
  const port = await freePort();
  const run = startNodesup([APP, '-c', config], { env: { PORT: String(port), LEAK_MB_PER_SEC: opts['leak-mb-per-sec'] }, cwd: dir });
  const start = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
  const sampler = new TreeSampler({ parentPid: start.primaryPid, limit: start.limits.rss, intervalMs: 100 }).start();
  // Every rss recycle counts, crossed or not: with predictive replacement most old workers are
  // drained just before their limit, and counting only the crossed ones would time only the misses.
  const done = () => run.events.filter((e) => e.event === 'worker.exit' && e.reason === 'rss').length >= RECYCLES;
  try {
    await run.waitFor(() => done(), { timeout: RECYCLES * 60_000, what: `${RECYCLES} rss recycles` });
  } finally {
    sampler.stop();
    await run.stop();
  }
  const rows = [];
  for (const exit of run.events.filter((e) => e.event === 'worker.exit' && e.reason === 'rss')) {
    const w = sampler.workers.get(exit.pid);
    if (!w) continue;
    if (w.crossedAt == null) {
      rows.push({ pid: exit.pid, crossed: false, toDecision: null, toRecycleEvent: null, gcMs: null, toExit: null, valueAtDecision: null, peak: w.peak });
      continue;
    }
    const recycle = run.events.find((e) => e.event === 'worker.recycle' && e.pid === exit.pid);
    const gc = run.events.find((e) => e.event === 'worker.gc' && e.pid === exit.pid);
    const decidedAt = exit.time - exit.recycleMs;
    rows.push({
      pid: exit.pid, crossed: true, crossedAt: w.crossedAt, toDecision: decidedAt - w.crossedAt, toRecycleEvent: recycle ? recycle.time - w.crossedAt : null,
      gcMs: gc ? gc.time - decidedAt : null, toExit: exit.time - w.crossedAt, valueAtDecision: recycle?.value ?? null, peak: w.peak,
    });
  }
  // The sampler finds workers as the primary's children; every pid a worker.spawn named must be among them.
  const spawned = run.events.filter((e) => e.event === 'worker.spawn').map((e) => e.pid);
  const seen = spawned.filter((pid) => sampler.workers.has(pid)).length;
  return { gcBeforeRecycle, rows, limit: start.limits.rss, pollInterval: start.pollInterval, lateTicks: sampler.lateTicks, ticks: sampler.ticks, spawned: spawned.length, seen };
}

const p = (rows, key, q) => percentile(rows.map((r) => r[key]).filter((x) => x !== null), q);

async function main() {
  const modes = [];
  for (const gc of [true, false]) {
    const m = await measure(gc);
    modes.push(m);
    process.stderr.write(`gcBeforeRecycle ${gc}: ${m.rows.map((r) => `${r.toDecision}/${r.toExit} ms`).join(', ')}\n`);
  }
  const poll = modes[0].pollInterval;
  const target = poll + 100;
  const body = [
    `\`test/fixtures/apps/leaky-http.js\` with LEAK_MB_PER_SEC=${opts['leak-mb-per-sec']} (a timer keeps ${opts['leak-mb-per-sec']} MiB/s, no load), ${WORKERS} worker(s), \`limits.rss ${opts['max-rss']}\`, pollInterval ${opts['poll-interval']}, leak detection off (so every recycle is an rss-limit one), metrics off. ` +
      `Crossing: the first of the bench's own 100 ms /proc samples (smaps_rollup Rss of the worker and its descendants) above the limit; the true crossing is up to 100 ms earlier. ` +
      'Decision: `worker.exit` time − its `recycleMs` (the moment the poll tick decided, before any GC). Recycle event: `worker.recycle` time (after the full GC when gcBeforeRecycle is on). Exit: the old worker\'s `worker.exit`. Times in ms, p50 / max, over the recycles whose worker crossed the limit; peak RSS over all. With predictive replacement (\`recycle.predictive\`, on by default) the replacement of a worker that will cross before a replacement could be ready is started early, and the old worker is drained at the crossing: crossing → decision is then negative, the decision having come first.',
    '',
    table(['gcBeforeRecycle', 'rss recycles', 'old worker gone before reaching the limit', 'crossing → decision', 'crossing → worker.recycle', 'full GC (decision → worker.gc)', 'crossing → old worker exit', 'RSS at decision, MiB (p50 / max)', 'peak RSS, MiB (max)', `target ≤ ${target} ms (max)`], modes.map((m) => [
      m.gcBeforeRecycle ? 'on' : 'off', m.rows.length, m.rows.filter((r) => !r.crossed).length,
      `${fx(p(m.rows, 'toDecision', 0.5))} / ${fx(p(m.rows, 'toDecision', 1))}`,
      `${fx(p(m.rows, 'toRecycleEvent', 0.5))} / ${fx(p(m.rows, 'toRecycleEvent', 1))}`,
      m.gcBeforeRecycle ? `${fx(p(m.rows, 'gcMs', 0.5))} / ${fx(p(m.rows, 'gcMs', 1))}` : '-',
      `${fx(p(m.rows, 'toExit', 0.5))} / ${fx(p(m.rows, 'toExit', 1))}`,
      `${mib(p(m.rows, 'valueAtDecision', 0.5))} / ${mib(p(m.rows, 'valueAtDecision', 1))}`,
      mib(p(m.rows, 'peak', 1)),
      (p(m.rows, 'toDecision', 1) ?? -Infinity) <= target ? 'met' : 'missed',
    ])),
    '',
    `Limit ${mib(modes[0].limit)} MiB. Workers (\`worker.spawn\` pids) seen by the sampler: ${modes.map((m) => `${m.seen} of ${m.spawned}`).join(' and ')}. Bench sampler ticks more than 200 ms apart: ${modes.map((m) => `${m.lateTicks} of ${m.ticks}`).join(' and ')} (a late tick delays the measured crossing, making latencies look shorter).`,
  ].join('\n');
  publish(opts, 'detection-latency', 'Detection latency', body);
}

main().catch((err) => { process.stderr.write(`detection-latency: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
