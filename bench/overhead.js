// Throughput overhead: the same tiny HTTP app under a bare node:cluster primary (no supervision
// at all: the limit) and under nodesup with its defaults (poll 1s, metrics on), alternating runs,
// keep-alive autocannon load on 127.0.0.1. Target: nodesup ≥ 0.97 × bare. The ratio is the mean of
// the pairs' ratios (each nodesup run against the bare run just before it), with its 95 % interval.
//
// `--old DIR`: this checkout's nodesup against another one's, in the same run. DIR is a checkout
// of the commit to compare against, made with
//   git worktree add /tmp/nodesup-old <commit> && (cd /tmp/nodesup-old && npm ci)
// Each round runs bare, then old and new, the two in turns (old first in the 1st, 3rd, … round),
// so that neither always follows the other; reported: new ÷ old throughput with its 95 % interval
// over the rounds (nothing got slower while the interval reaches 1), and each against its round's bare.
// Written as its own section, overhead-vs-old. 10 rounds of 3 runs take about 8 minutes.
//
// `--app express`: the express JSON app that does real work per request (bench/apps/express-json.js,
// GET /users?limit=50&min=20) instead of hello world; its sections are overhead-express and
// overhead-express-vs-old. Target there: nodesup ≥ 0.99 × bare.
//   node bench/overhead.js [--quick] [--write] [--runs 10] [--duration 10] [--connections 32] [--app hello|express]
//   node bench/overhead.js --old /tmp/nodesup-old [--quick] [--write] [--runs 10] [--app hello|express]
import os from 'node:os';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startPrimary, startNodesup, freePort, load, cleanupAll, scratch } from './lib/spawn.js';
import { clusterCpuMeter } from './lib/proc.js';
import { mean, sd, min, max, fx, int, ci95 } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { overheadApp } from './lib/overhead-apps.js';
import { oldTree, pairOrder, ratioCi, ciText, verdict, OLD_USAGE } from './lib/versus.js';

const opts = benchArgs({
  runs: { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' },
  connections: { type: 'string', default: '32' }, workers: { type: 'string', default: '2' }, old: { type: 'string' },
  app: { type: 'string', default: 'hello' },
}, `node bench/overhead.js [--quick] [--write] [--runs N] [--duration S] [--warmup S] [--connections C] [--workers N] [--old DIR] [--app hello|express]\n  ${OLD_USAGE}`);
const APP_OF = overheadApp(opts.app);
const OLD = opts.old ? oldTree(opts.old) : null;
// The checkout each kind of nodesup run starts.
const TREES = { nodesup: ROOT, new: ROOT, old: OLD?.root };
const RUNS = Number(opts.runs ?? (opts.quick ? 3 : 10));
const DURATION = Number(opts.duration ?? (opts.quick ? 3 : 10));
const WARMUP = Number(opts.warmup ?? (opts.quick ? 1 : 3));
const CONNECTIONS = Number(opts.connections);
const WORKERS = Number(opts.workers);
const APP = path.join(ROOT, APP_OF.file);
const TARGET = APP_OF.target;
const LOAD_AT_START = os.loadavg()[0];
// The shared host's load: alternating legs cancel it out of the ratio, not out of its interval.
const hostLoad = () => `Host load (1-minute load average): ${LOAD_AT_START.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end, on ${os.cpus().length} CPUs.`;
const BARE = path.join(ROOT, 'bench/apps/bare-primary.js');

const CPU_WHAT = 'CPU a request: utime+stime over the load (`/proc/<pid>/stat`) over the responses; the workers\' is the sum over the primary\'s children.';
const usText = (xs) => (xs.includes(null) ? '-' : fx(mean(xs), 1));
/** The CPU a request, nodesup's runs ÷ bare's, as a line of the section. */
function cpuRatioLine(label, bare, kind) {
  const parts = ['workersUs', 'primaryUs'].map((key) => {
    const xs = kind.map((r) => r[key]);
    const ys = bare.map((r) => r[key]);
    return xs.includes(null) || ys.includes(null) ? null : ratioCi(ys, xs);
  });
  const total = ratioCi(bare.map((r) => r.primaryUs + r.workersUs), kind.map((r) => r.primaryUs + r.workersUs));
  if (parts.includes(null)) return `${label}: the CPU a request could not be read in every run.`;
  return `${label}, CPU a request: **workers ${ciText(parts[0].ci)}**, primary ${ciText(parts[1].ci, 2)}, the two together ${ciText(total.ci)}.`;
}

async function oneRun(kind) {
  const port = await freePort();
  const env = { PORT: String(port), WORKERS: String(WORKERS) };
  const run = kind === 'bare'
    ? startPrimary([BARE, APP], { env, cwd: scratch(), name: 'bare primary' })
    : startNodesup([APP, '-w', String(WORKERS), '--poll-interval', '1s', '--metrics', `127.0.0.1:${await freePort()}`, '--log-format', 'json'], { env, root: TREES[kind] });
  try {
    const start = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
    await run.waitReady(WORKERS, { timeout: 60_000 });
    const url = `http://127.0.0.1:${port}${APP_OF.path}`;
    if (WARMUP > 0) await load({ url, connections: CONNECTIONS, duration: WARMUP }).result;
    const cpu = clusterCpuMeter(start.primaryPid);
    cpu.start();
    const r = await load({ url, connections: CONNECTIONS, duration: DURATION }).result;
    const measured = cpu.stop(r.responses);
    // nodesup must have been sampling throughout, or the comparison means nothing.
    const pollTicks = kind === 'bare' ? null : (await run.status()).poll?.count ?? null;
    return {
      kind, reqPerSec: r.reqPerSec.mean, p99: r.latencyMs.p99, failed: r.failed, pollTicks,
      ...measured, workersUs: cpu.children >= WORKERS ? measured.workersUs : null,
    };
  } finally {
    const { code } = await run.stop();
    if (code !== 0) process.stderr.write(`${kind}: exited with ${code}\n`);
  }
}

const runLine = (label, r) => `${label}: ${fx(r.reqPerSec)} req/s, p99 ${r.p99} ms, primary CPU ${fx(r.primaryCpu, 1)} %, failed ${r.failed}${r.pollTicks !== null ? `, ${r.pollTicks} poll ticks` : ''}\n`;

async function main() {
  if (OLD) return versusOld();
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    for (const kind of ['bare', 'nodesup']) {
      const r = await oneRun(kind);
      runs.push(r);
      process.stderr.write(runLine(`run ${i + 1}/${RUNS} ${kind}`, r));
    }
  }
  const of = (kind) => runs.filter((r) => r.kind === kind);
  const rps = (kind) => of(kind).map((r) => r.reqPerSec);
  const pairs = of('nodesup').map((r, i) => r.reqPerSec / of('bare')[i].reqPerSec);
  const [ratio, low, high] = ci95(pairs);
  const p99 = ci95(of('nodesup').map((r, i) => r.p99 / of('bare')[i].p99));
  const row = (kind, label) => {
    const xs = rps(kind);
    return [label, xs.length, int(mean(xs)), int(sd(xs)), `${int(min(xs))}–${int(max(xs))}`, fx(mean(of(kind).map((r) => r.p99)), 1),
      fx(mean(of(kind).map((r) => r.primaryCpu)), 1), usText(of(kind).map((r) => r.primaryUs)), usText(of(kind).map((r) => r.workersUs)), of(kind).reduce((a, r) => a + r.failed, 0)];
  };
  const body = [
    `The app (\`${APP_OF.file}\`, ${APP_OF.what}) under a bare node:cluster primary (\`bench/apps/bare-primary.js\`: forks, nothing else) and under nodesup with defaults (poll 1s, metrics on, leak detection on), ${WORKERS} workers each; runs alternate bare, nodesup, bare, …; each run: fresh primary, ready by events, ${WARMUP} s warm-up (discarded), then autocannon ${CONNECTIONS} keep-alive connections × ${DURATION} s on 127.0.0.1 from a separate process on the same machine. ${CPU_WHAT}`,
    '',
    table(['primary', 'runs', 'req/s mean', '± sd', 'min–max', 'p99 latency ms (mean)', 'primary CPU, % of a core', 'primary CPU a request, µs', 'workers\' CPU a request, µs', 'failed'], [row('bare', 'bare node:cluster'), row('nodesup', 'nodesup')]),
    '',
    `**nodesup / bare throughput = ${fx(ratio, 3)}, 95 % interval ${fx(low, 3)}–${fx(high, 3)}** over ${pairs.length} alternating pairs (target ≥ ${TARGET}: ${low >= TARGET ? 'met, the whole interval' : ratio >= TARGET ? 'met by the mean, not by the whole interval' : 'missed'}); per-pair ratios ${fx(min(pairs), 3)}–${fx(max(pairs), 3)}. p99 latency nodesup / bare: ${fx(p99[0], 2)} (${fx(p99[1], 2)}–${fx(p99[2], 2)}).`,
    cpuRatioLine('nodesup ÷ bare', of('bare'), of('nodesup')),
    '',
    `Runs in order (req/s): ${runs.map((r) => `${r.kind} ${int(r.reqPerSec)}`).join(', ')}.`,
    '',
    hostLoad(),
  ].join('\n');
  publish(opts, APP_OF.section, opts.app === 'hello' ? 'Throughput overhead' : `Throughput overhead, ${opts.app} app`, body);
}

async function versusOld() {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    for (const kind of ['bare', ...pairOrder(i)]) {
      const r = { ...(await oneRun(kind)), round: i };
      runs.push(r);
      process.stderr.write(runLine(`round ${i + 1}/${RUNS} ${kind}`, r));
    }
  }
  const of = (kind) => runs.filter((r) => r.kind === kind).sort((a, b) => a.round - b.round);
  const field = (kind, key) => of(kind).map((r) => r[key]);
  const tput = ratioCi(field('old', 'reqPerSec'), field('new', 'reqPerSec'));
  const p99 = ratioCi(field('old', 'p99'), field('new', 'p99'));
  const cpu = ratioCi(field('old', 'primaryCpu'), field('new', 'primaryCpu'));
  const vsBare = (kind) => ratioCi(field('bare', 'reqPerSec'), field(kind, 'reqPerSec'));
  const oldBare = vsBare('old');
  const newBare = vsBare('new');
  const row = (kind, label) => {
    const xs = field(kind, 'reqPerSec');
    return [label, xs.length, int(mean(xs)), int(sd(xs)), `${int(min(xs))}–${int(max(xs))}`, fx(mean(field(kind, 'p99')), 1),
      fx(mean(field(kind, 'primaryCpu')), 1), usText(field(kind, 'primaryUs')), usText(field(kind, 'workersUs')), of(kind).reduce((a, r) => a + r.failed, 0)];
  };
  const body = [
    `The app (\`${APP_OF.file}\`, ${APP_OF.what}) under a bare node:cluster primary (\`bench/apps/bare-primary.js\`: forks, nothing else) and under nodesup with defaults (poll 1s, metrics on, leak detection on) from the old checkout (${OLD.commit}) and from this one, ${WORKERS} workers each; ${RUNS} rounds of bare, then old and new (old first in odd-numbered rounds, new first in even ones); each run: fresh primary, ready by events, ${WARMUP} s warm-up (discarded), then autocannon ${CONNECTIONS} keep-alive connections × ${DURATION} s on 127.0.0.1 from a separate process on the same machine. Ratios: the mean of the rounds' ratios, with its 95 % interval. ${CPU_WHAT}`,
    '',
    table(['primary', 'runs', 'req/s mean', '± sd', 'min–max', 'p99 latency ms (mean)', 'primary CPU, % of a core', 'primary CPU a request, µs', 'workers\' CPU a request, µs', 'failed'],
      [row('bare', 'bare node:cluster'), row('old', `nodesup old (${OLD.commit})`), row('new', 'nodesup new (this checkout)')]),
    '',
    `**new ÷ old throughput = ${ciText(tput.ci)}**, 95 % interval over ${tput.ratios.length} pairs: ${verdict(tput, { better: 'higher' })}; per-pair ratios ${fx(min(tput.ratios), 3)}–${fx(max(tput.ratios), 3)}.`,
    `Against bare: old ÷ bare ${ciText(oldBare.ci)}, new ÷ bare ${ciText(newBare.ci)} (target ≥ ${TARGET}). p99 latency new ÷ old ${ciText(p99.ci, 2)}; primary CPU new ÷ old ${ciText(cpu.ci, 2)}: ${verdict(cpu, { better: 'lower' })}.`,
    cpuRatioLine('new ÷ old', of('old'), of('new')),
    cpuRatioLine('new ÷ bare', of('bare'), of('new')),
    '',
    `Runs in order (req/s): ${runs.map((r) => `${r.kind} ${int(r.reqPerSec)}`).join(', ')}.`,
    '',
    hostLoad(),
  ].join('\n');
  publish(opts, `${APP_OF.section}-vs-old`, `Throughput${opts.app === 'hello' ? '' : `, ${opts.app} app`}, old (${OLD.commit}) against new`, body);
}

main().catch((err) => { process.stderr.write(`overhead: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
