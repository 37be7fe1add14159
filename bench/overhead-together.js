// Throughput overhead with both primaries up at once: a bare node:cluster primary and nodesup
// (defaults: poll 1s, metrics on, leak detection on), the same app and worker count, started
// once and loaded in turns, a short burst each, for many rounds. overhead.js starts a fresh
// primary for every run, 30 s apart; on a shared 2-core host the load's speed drifts over that
// much time by more than the few percent sought, and its interval stays wide. Bursts a few
// seconds apart see the same host. Both keep running between bursts, so nodesup's ticks, its
// leak checks past the warm-up (and any suspicion they raise) fall inside the measure as they
// would in production.
//   node bench/overhead-together.js [--quick] [--write] [--rounds 40] [--burst 3] [--app hello|express] [--leak-off] [--old DIR]
// --leak-off: nodesup with `leak: false` (no leak checks, no confirmation GCs, no profiler), to tell
// what leak detection costs from what the rest of nodesup does.
// --old DIR: a third primary, nodesup from the checkout DIR, up beside the other two and loaded in
// the same turns (the order of the three goes through all six permutations), so that old against
// new is read on the same host minutes as each against bare; a change of a few percent is not
// readable from two runs an hour apart on a shared host. Written as its own section, …-vs-old.
// nodesup logs at debug here: its leak.suspected and leak.cleared events tell the rounds a suspicion
// (forced full GCs, the sites' profiler) ran through from the others, each set against bare.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startPrimary, startNodesup, freePort, load, cleanupAll, scratch } from './lib/spawn.js';
import { clusterCpuMeter } from './lib/proc.js';
import { mean, fx, int } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { overheadApp } from './lib/overhead-apps.js';
import { oldTree, ratioCi, ciText, verdict, OLD_USAGE } from './lib/versus.js';
import { SUSPECT_LEAD_MS } from '../src/core/leak/heap-confirm.js';
import { suspicionSpans, suspicionTotals, overlaps } from './lib/suspicions.js';

const opts = benchArgs({
  rounds: { type: 'string' }, burst: { type: 'string' }, warmup: { type: 'string' },
  connections: { type: 'string', default: '32' }, workers: { type: 'string', default: '2' }, app: { type: 'string', default: 'hello' },
  'leak-off': { type: 'boolean', default: false }, old: { type: 'string' },
}, `node bench/overhead-together.js [--quick] [--write] [--rounds N] [--burst S] [--warmup S] [--connections C] [--workers N] [--app hello|express] [--leak-off] [--old DIR]\n  ${OLD_USAGE}`);
const APP_OF = overheadApp(opts.app);
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 3 : 40));
const BURST = Number(opts.burst ?? (opts.quick ? 2 : 3));
const WARMUP = Number(opts.warmup ?? (opts.quick ? 2 : 10));
const CONNECTIONS = Number(opts.connections);
const WORKERS = Number(opts.workers);
const APP = path.join(ROOT, APP_OF.file);
const LOAD_AT_START = os.loadavg()[0];
const OLD = opts.old ? oldTree(opts.old) : null;
const KINDS = OLD ? ['bare', 'old', 'nodesup'] : ['bare', 'nodesup'];
const LEAK_OFF = opts['leak-off'];

/** Every order of the kinds; round i takes the i-th (cyclically), so no kind always goes first or follows another. */
function permutations(items) {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest]));
}
const ORDERS = permutations(KINDS);

/** nodesup's arguments beyond the bench's: a config with leak detection off, with --leak-off. */
function leakOffArgs() {
  if (!LEAK_OFF) return [];
  const file = path.join(scratch(), 'leak-off.config.mjs');
  fs.writeFileSync(file, 'export default { leak: false };\n');
  return ['-c', file];
}

async function startAll() {
  const started = {};
  for (const kind of KINDS) {
    const port = await freePort();
    const env = { PORT: String(port), WORKERS: String(WORKERS) };
    const run = kind === 'bare'
      ? startPrimary([path.join(ROOT, 'bench/apps/bare-primary.js'), APP], { env, cwd: scratch(), name: 'bare primary' })
      : startNodesup([APP, '-w', String(WORKERS), '--poll-interval', '1s', '--metrics', `127.0.0.1:${await freePort()}`, '--log-format', 'json', '--log-level', 'debug', ...leakOffArgs()],
        { env, ...(kind === 'old' ? { root: OLD.root } : {}) });
    const start = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
    await run.waitReady(WORKERS, { timeout: 60_000 });
    started[kind] = { run, pid: start.primaryPid, url: `http://127.0.0.1:${port}${APP_OF.path}`, readyAt: Date.now() };
  }
  return started;
}

/** One burst of load on one primary: req/s, p99 and the CPU a request of its processes. */
async function burst({ pid, url }) {
  const cpu = clusterCpuMeter(pid);
  cpu.start();
  const from = Date.now();
  const r = await load({ url, connections: CONNECTIONS, duration: BURST }).result;
  const { primaryUs, workersUs } = cpu.stop(r.responses);
  return { reqPerSec: r.reqPerSec.mean, p99: r.latencyMs.p99, failed: r.failed, primaryUs, workersUs, from, to: Date.now() };
}

async function main() {
  const started = await startAll();
  for (const kind of KINDS) await load({ url: started[kind].url, connections: CONNECTIONS, duration: WARMUP }).result;
  const t0 = Date.now();
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) {
    const round = { sinceReady: Date.now() - started.nodesup.readyAt };
    for (const kind of ORDERS[i % ORDERS.length]) round[kind] = await burst(started[kind]);
    rounds.push(round);
    process.stderr.write(`round ${i + 1}/${ROUNDS}: ${KINDS.map((k) => `${k} ${int(round[k].reqPerSec)} req/s`).join(', ')}\n`);
  }
  const minutes = (Date.now() - t0) / 60_000;
  const status = await started.nodesup.run.status();
  const leakEvents = (kind) => started[kind].run.events.filter((e) => e.event === 'leak.warning').length;
  const ended = Date.now();
  const spansOf = (kind) => suspicionSpans(started[kind].run.events, ended);
  const totalsOf = (kind) => suspicionTotals(started[kind].run.events, ended);
  for (const kind of KINDS) {
    const { code } = await started[kind].run.stop();
    if (code !== 0) process.stderr.write(`${kind}: exited with ${code}\n`);
  }
  const field = (kind, key) => rounds.map((r) => r[kind][key]);
  const tput = ratioCi(field('bare', 'reqPerSec'), field('nodesup', 'reqPerSec'));
  const p99 = ratioCi(field('bare', 'p99'), field('nodesup', 'p99'));
  const total = (kind) => rounds.map((r) => (r[kind].workersUs === null || r[kind].primaryUs === null ? NaN : r[kind].workersUs + r[kind].primaryUs));
  const workers = ratioCi(field('bare', 'workersUs'), field('nodesup', 'workersUs'));
  const cpu = ratioCi(total('bare'), total('nodesup'));
  // A leak suspicion may start this long after a worker is ready (its warm-up hold less the lead
  // a verdict needs): rounds before it measure nodesup without any, rounds after with what came.
  const suspicionFrom = LEAK_OFF ? NaN : status.config.leak.warmUp - SUSPECT_LEAD_MS;
  const split = (base = 'bare') => [['before', (r) => r.sinceReady < suspicionFrom], ['after', (r) => r.sinceReady >= suspicionFrom]].map(([when, keep]) => {
    const rs = rounds.filter(keep);
    const c = ratioCi(rs.map((r) => r[base].reqPerSec), rs.map((r) => r.nodesup.reqPerSec));
    return `rounds begun ${when} ${fx(suspicionFrom / 1000, 0)} s from readiness (the first moment a leak suspicion may start): ${rs.length}${rs.length >= 2 ? `, ${base === 'old' ? 'new ÷ old' : 'nodesup ÷ bare'} ${ciText(c.ci)}` : ''}`;
  });
  // Rounds whose nodesup burst a suspicion of any of its workers overlapped, and the others: what a
  // suspicion costs, read from the same run (its debug log; an old checkout without those events has none).
  const bySuspicion = (base = 'bare', kind = 'nodesup') => {
    const spans = spansOf(kind);
    return [['with', true], ['without', false]].map(([label, want]) => {
      const rs = rounds.filter((r) => overlaps(spans, r[kind].from, r[kind].to) === want);
      const c = ratioCi(rs.map((r) => r[base].reqPerSec), rs.map((r) => r[kind].reqPerSec));
      return `${label} a suspicion running: ${rs.length}${rs.length >= 2 ? `, ${kind === 'old' ? 'old' : 'nodesup'} ÷ ${base} ${ciText(c.ci)}` : ''}`;
    });
  };
  const totalsText = (kind) => {
    const x = totalsOf(kind);
    return `${x.started} suspicion(s) begun (${fx(x.workerSeconds, 0)} worker-seconds under one; the ${x.cleared} cleared took ${x.points} point(s), ${x.forcedGcs} forced GC(s))`;
  };
  const [m, lo] = tput.ci;
  const met = lo >= APP_OF.target ? 'met, the whole interval' : m >= APP_OF.target ? 'met by the mean, not by the whole interval' : 'missed';
  const perRound = (r) => KINDS.map((k) => int(r[k].reqPerSec)).join('/');
  const row = (kind, label) => [label, rounds.length, int(mean(field(kind, 'reqPerSec'))), fx(mean(field(kind, 'p99')), 1),
    fx(mean(field(kind, 'primaryUs')), 2), fx(mean(field(kind, 'workersUs')), 1), rounds.reduce((a, r) => a + r[kind].failed, 0)];
  const vsOld = OLD && {
    tput: ratioCi(field('old', 'reqPerSec'), field('nodesup', 'reqPerSec')),
    oldBare: ratioCi(field('bare', 'reqPerSec'), field('old', 'reqPerSec')),
    workers: ratioCi(field('old', 'workersUs'), field('nodesup', 'workersUs')),
    oldWorkers: ratioCi(field('bare', 'workersUs'), field('old', 'workersUs')),
  };
  const oldLines = !OLD ? [] : [
    `**new ÷ old throughput = ${ciText(vsOld.tput.ci)}** over ${vsOld.tput.ratios.length} rounds: ${verdict(vsOld.tput, { better: 'higher' })}; old ÷ bare ${ciText(vsOld.oldBare.ci)}.`,
    `Workers' CPU a request: new ÷ old ${ciText(vsOld.workers.ci)} (${verdict(vsOld.workers, { better: 'lower' })}); old ÷ bare ${ciText(vsOld.oldWorkers.ci)}.`,
    ...(LEAK_OFF ? [] : [`New ÷ old by when the round began: ${split('old').join('; ')}.`]),
    `Old nodesup at the end: ${leakEvents('old')} leak warning(s) in its log; ${totalsText('old')}; its rounds ${bySuspicion('bare', 'old').join('; ')}.`,
  ];
  const body = [
    `The app (\`${APP_OF.file}\`, ${APP_OF.what}) under a bare node:cluster primary (\`bench/apps/bare-primary.js\`) and under nodesup with defaults (poll 1s, metrics on, leak detection ${LEAK_OFF ? 'off: `leak: false`' : 'on'}), ${WORKERS} workers each, both started once and running side by side; after a ${WARMUP} s warm-up of each, ${ROUNDS} rounds of a ${BURST} s burst on each (${OLD ? `three primaries, the third nodesup from the old checkout (${OLD.commit}), in an order that goes through all six permutations round by round` : 'bare first in odd-numbered rounds, nodesup first in even ones'}): autocannon ${CONNECTIONS} keep-alive connections on 127.0.0.1 from a separate process. The rounds took ${fx(minutes, 1)} minutes (nodesup holds its leak checks for a worker's first 80 s at the defaults). CPU a request: utime+stime over the burst (\`/proc/<pid>/stat\`) over the responses; the workers' is the sum over the primary's children.`,
    '',
    table(['primary', 'bursts', 'req/s mean', 'p99 latency ms (mean)', 'primary CPU a request, µs', 'workers\' CPU a request, µs', 'failed'],
      [row('bare', 'bare node:cluster'), ...(OLD ? [row('old', `nodesup old (${OLD.commit})`)] : []), row('nodesup', OLD ? 'nodesup new (this checkout)' : 'nodesup')]),
    '',
    `**nodesup ÷ bare throughput = ${ciText(tput.ci)}** over ${tput.ratios.length} rounds (target ≥ ${APP_OF.target}, the interval's lower end ≥ 0.95: ${met}); p99 latency ${ciText(p99.ci, 2)}.`,
    `nodesup ÷ bare, CPU a request: workers ${ciText(workers.ci)}; primary and workers together ${ciText(cpu.ci)}.`,
    ...(LEAK_OFF ? [] : [`By when the round began: ${split().join('; ')}.`, `By the nodesup arm's suspicions (its debug log): rounds ${bySuspicion().join('; ')}.`]),
    ...oldLines,
    `nodesup at the end: ${status.poll?.count ?? '?'} poll ticks; ${leakEvents('nodesup')} leak warning(s) in its log; ${totalsText('nodesup')}.`,
    ...(LEAK_OFF ? [] : [`Its suspicions (worker pid: what, seconds from readiness, how long, points): ${spansOf('nodesup').map((x) => `${x.pid}: ${x.what} at ${fx((x.from - started.nodesup.readyAt) / 1000, 0)} s, ${fx((x.to - x.from) / 1000, 0)} s, ${x.points ?? 'open'}`).join('; ') || 'none'}.`]),
    '',
    `Rounds in order (req/s, ${KINDS.join('/')}; seconds from readiness): ${rounds.map((r) => `${perRound(r)} (${fx(r.sinceReady / 1000, 0)})`).join(', ')}.`,
    '',
    `Host load (1-minute load average): ${LOAD_AT_START.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end, on ${os.cpus().length} CPUs.`,
  ].join('\n');
  publish(opts, `overhead-together${opts.app === 'hello' ? '' : `-${opts.app}`}${LEAK_OFF ? '-leak-off' : ''}${OLD ? '-vs-old' : ''}`,
    `Throughput overhead, ${OLD ? `bare, old (${OLD.commit}) and new` : 'both primaries'} side by side${opts.app === 'hello' ? '' : `, ${opts.app} app`}${LEAK_OFF ? ', leak detection off' : ''}`, body);
}

main().catch((err) => { process.stderr.write(`overhead-together: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
