// Recycles under load: a leaking app (test/fixtures/apps/leaky-http.js, LEAK_KB per request)
// under keep-alive autocannon load for the whole run, memory recycles by nodesup plus rolling
// reloads (`nodesup reload` through the CLI) during it. Target: ≥ 20 memory recycles, ≥ 3
// reloads, 0 failed requests (errors, timeouts, non-2xx).
//   node bench/recycles.js [--quick] [--write] [--duration 90] [--reloads 3]
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startNodesup, freePort, load, cleanupAll, delay } from './lib/spawn.js';
import { alive } from './lib/proc.js';
import { int } from './lib/stats.js';
import { REQUEST_HEADER, requestCells, requestNote } from './lib/requests.js';
import { publish, table } from './lib/results.js';

const opts = benchArgs({
  duration: { type: 'string' }, reloads: { type: 'string', default: '3' }, connections: { type: 'string', default: '16' },
  workers: { type: 'string', default: '2' }, 'max-rss': { type: 'string', default: '110mb' }, 'leak-kb': { type: 'string', default: '4' },
  'poll-interval': { type: 'string', default: '1s' },
}, 'node bench/recycles.js [--quick] [--write] [--duration S] [--reloads N] [--connections C] [--workers N] [--max-rss SIZE] [--leak-kb KB] [--poll-interval D]');
const DURATION = Number(opts.duration ?? (opts.quick ? 30 : 90));
const RELOADS = Number(opts.reloads);
const CONNECTIONS = Number(opts.connections);
const WORKERS = Number(opts.workers);
const APP = path.join(ROOT, 'test/fixtures/apps/leaky-http.js');
const NON_MEMORY = new Set(['reload', 'manual', 'max-age', 'max-requests', 'unresponsive']);

async function main() {
  const port = await freePort();
  const run = startNodesup([APP, '-w', String(WORKERS), '--max-rss', opts['max-rss'], '--poll-interval', opts['poll-interval'], '--metrics', 'false', '--log-format', 'json'],
    { env: { PORT: String(port), LEAK_KB: opts['leak-kb'] } });
  await run.waitReady(WORKERS);
  const t0 = Date.now();
  const traffic = load({ url: `http://127.0.0.1:${port}/`, connections: CONNECTIONS, duration: DURATION });

  // Reloads spread evenly over the run, one after the other (a reload returns when it is done).
  const reloads = [];
  for (let k = 1; k <= RELOADS; k++) {
    const at = t0 + (DURATION * 1000 * k) / (RELOADS + 1);
    await delay(Math.max(0, at - Date.now()));
    const t = Date.now();
    const out = JSON.parse(await run.cli(['reload']));
    reloads.push({ startedSec: (t - t0) / 1000, ms: Date.now() - t, reloaded: out.reloaded });
    process.stderr.write(`reload ${k}: ${out.reloaded} slots in ${Date.now() - t} ms\n`);
  }
  const r = await traffic.result;
  const loadEnd = Date.now();
  const pids = run.events.filter((e) => e.event === 'worker.spawn').map((e) => e.pid);
  const { code } = await run.stop();
  await delay(500);
  const leftover = pids.filter(alive);

  const during = run.events.filter((e) => e.at >= t0 && e.at <= loadEnd);
  const recycles = during.filter((e) => e.event === 'worker.recycle');
  const byReason = {};
  for (const e of recycles) byReason[e.reason] = (byReason[e.reason] ?? 0) + 1;
  const memory = recycles.filter((e) => !NON_MEMORY.has(e.reason)).length;
  const gcs = during.filter((e) => e.event === 'worker.gc');
  const exits = run.events.filter((e) => e.event === 'worker.exit');
  const unplanned = exits.filter((e) => !e.planned).length;
  const forced = exits.filter((e) => e.forced).length;
  const reloadedSlots = reloads.reduce((a, x) => a + x.reloaded, 0);

  const body = [
    `\`test/fixtures/apps/leaky-http.js\` (LEAK_KB=${opts['leak-kb']}: every request keeps ${opts['leak-kb']} KiB) under nodesup, ${WORKERS} workers, \`--max-rss ${opts['max-rss']} --poll-interval ${opts['poll-interval']}\`, other settings default (gcBeforeRecycle on, killTimeout 10s); autocannon ${CONNECTIONS} keep-alive connections × ${DURATION} s on 127.0.0.1 from a separate process; ${RELOADS} \`nodesup reload\` runs through the CLI spread over the run.`,
    '',
    table(REQUEST_HEADER, [requestCells(r)]),
    '',
    table(['memory recycles', 'recycles by reason', 'reloads (slots reloaded)', 'full GCs before recycle', 'unplanned exits', 'forced kills', 'req/s mean', 'p99 / max latency ms'], [[
      memory, Object.entries(byReason).map(([k, v]) => `${k}: ${v}`).join(', ') || '-', `${reloads.length} (${reloadedSlots})`, gcs.length, unplanned, forced,
      int(r.reqPerSec.mean), `${r.latencyMs.p99} / ${r.latencyMs.max}`,
    ]]),
    '',
    `Failed requests: **${r.failed}** of ${int(r.sent)} sent (target 0: ${r.failed === 0 ? 'met' : 'missed'}). ` +
      `Memory recycles: ${memory} (the run needs ≥ 20: ${memory >= 20 ? 'yes' : 'too few, rerun with a longer --duration or a larger --leak-kb'}); reloads: ${reloads.length} (needs ≥ 3: ${reloads.length >= 3 ? 'yes' : 'too few'}). ` +
      `nodesup exited ${code}; workers left running after stop: ${leftover.length}.`,
    '',
    requestNote(r),
    '',
    'Reference, not a measurement of ours: the cluster of incident 4 (docs/incidents.md) (kills over-limit workers, no replacement first) lost 640 of 100 000 requests during its recycles.',
  ].join('\n');
  publish(opts, 'recycles', 'Recycles under load', body);
}

main().catch((err) => { process.stderr.write(`recycles: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
