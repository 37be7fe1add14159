// What nodesup's forced full GCs leave a worker: a hello world after six full GCs forced from
// timers (bench/apps/forced-gcs.js), as nodesup forces them (a process.nextTick queued first:
// src/worker/full-gc.js) and bare, against the same app never forced. One process per leg, the
// legs in turns (the first moved each round); each leg: warm-up (the GCs fall in it), then
// autocannon keep-alive load on 127.0.0.1. Ratios per round to the round's off leg.
//   PATH=<node>:$PATH node bench/tick-shapes.js [--quick] [--write] [--rounds 8] [--duration 5]
import os from 'node:os';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { cleanupAll } from './lib/spawn.js';
import { appLeg } from './lib/app-leg.js';
import { mean, fx, int } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { ratioCi, ciText } from './lib/versus.js';

const opts = benchArgs({ rounds: { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string', default: '32' } },
  'PATH=<node>:$PATH node bench/tick-shapes.js [--quick] [--write] [--rounds N] [--duration S] [--connections C]');
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 2 : 8));
const DURATION = Number(opts.duration ?? (opts.quick ? 2 : 5));
const WARMUP = 4; // the six GCs take 2.1 s from the first request
const CONNECTIONS = Number(opts.connections);
const APP = path.join(ROOT, 'bench/apps/forced-gcs.js');
const MODES = ['off', 'kept', 'bare'];
const LABEL = { off: 'no forced GC', kept: 'six forced, nodesup\'s way (a tick queued first)', bare: 'six forced, gc() alone' };
const LOAD_AT_START = os.loadavg()[0];

/** One leg: the app in `mode`, warmed up (its GCs fall in it), then loaded; its CPU a response, µs. */
const leg = (mode) => appLeg({ app: APP, mode, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP });

async function main() {
  const got = Object.fromEntries(MODES.map((m) => [m, []]));
  for (let i = 0; i < ROUNDS; i++) {
    for (let j = 0; j < MODES.length; j++) {
      const mode = MODES[(i + j) % MODES.length];
      const r = await leg(mode);
      got[mode].push(r);
      process.stderr.write(`round ${i + 1}/${ROUNDS} ${mode}: ${int(r.reqPerSec)} req/s, ${fx(r.cpuUs, 2)} µs CPU a response\n`);
    }
  }
  const of = (m, k) => got[m].map((r) => r[k]);
  const vsOff = (m, k) => (m === 'off' ? '1' : ciText(ratioCi(of('off', k), of(m, k)).ci));
  const rows = MODES.map((m) => [LABEL[m], fx(mean(of(m, 'cpuUs')), 2), vsOff(m, 'cpuUs'), int(mean(of(m, 'reqPerSec'))), vsOff(m, 'reqPerSec'), got[m].reduce((a, r) => a + r.failed, 0)]);
  const body = [
    `\`bench/apps/forced-gcs.js\` (a hello world) on ${process.version}, one process per leg, ${ROUNDS} rounds of the three legs in turns; each leg: ${WARMUP} s warm-up from its first request, in which the six forced GCs (400 ms apart, from timers) fall, then autocannon ${CONNECTIONS} keep-alive connections × ${DURATION} s on 127.0.0.1 from a separate process. CPU a response: the app process's utime+stime over the measured load (\`/proc/<pid>/stat\`) over its responses (the load generator shares the host's cores, so req/s moves with it more than the app's CPU does). Ratios: per round, to the round's off leg; mean and 95 % interval.`,
    '',
    table(['leg', 'CPU a response, µs (mean)', '÷ no forced GC (95 % interval)', 'req/s (mean)', '÷ no forced GC (95 % interval)', 'failed'], rows),
    '',
    `**CPU a response, kept ÷ bare: ${ciText(ratioCi(of('bare', 'cpuUs'), of('kept', 'cpuUs')).ci)}**; req/s, kept ÷ bare: ${ciText(ratioCi(of('bare', 'reqPerSec'), of('kept', 'reqPerSec')).ci)} (95 % intervals over the rounds). Host load (1-minute average, ${os.cpus().length} CPUs) at the start / end: ${LOAD_AT_START.toFixed(1)} / ${os.loadavg()[0].toFixed(1)}.`,
  ].join('\n');
  publish(opts, 'tick-shapes', 'What forced full GCs leave process.nextTick', body);
}

main().catch((err) => { process.stderr.write(`${err.stack ?? err}\n`); process.exitCode = 1; }).finally(cleanupAll);
