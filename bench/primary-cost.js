// The primary's own cost: N idle workers (bench/apps/idle.js listens and does nothing), poll 1s,
// metrics off. After every worker is ready and a settle period: the primary's CPU share over a
// window (utime+stime delta from /proc/<pid>/stat ÷ wall time, % of one core), its RSS, and the
// poll tick duration p50/p99 from `nodesup status --json`. Targets: ≤ 1 % of a core at 8 workers,
// ≤ 5 % at 128. `--soak S`: 8 workers for S seconds, metrics on and scraped every 10 s, the
// primary's RSS every 10 s, and its slope once every worker's sample history (10 min) is full:
// until then the primary grows by design; after it, flat = nodesup does not leak itself.
//
// `--old DIR`: this checkout's primary against another one's, in the same run. DIR is a checkout
// of the commit to compare against, made with
//   git worktree add /tmp/nodesup-old <commit> && (cd /tmp/nodesup-old && npm ci)
// Each pair measures every count once with old and once with new, the two in turns (old first in
// the 1st, 3rd, … pair), so that a host slowing down over the run falls on both; reported per
// count: new ÷ old CPU and RSS (RSS: the mean over the window) with their 95 % intervals over the
// pairs, and CPU as new − old too, the steadier figure where the primary idles on a few clock
// ticks a second. Written as its own section, primary-cost-vs-old. 5 pairs at 8,32,128 take
// about 45 minutes; --quick (8,16 workers, 2 pairs, no wait for the tick ring) about 2.
//   node bench/primary-cost.js [--quick] [--write] [--counts 8,32,128] [--window 30]
//   node bench/primary-cost.js --soak 2400 [--write]
//   node bench/primary-cost.js --old /tmp/nodesup-old [--quick] [--write] [--pairs 5] [--counts 8,32,128]
//
// `--floor`: the IPC floor (bench/lib/ipc-floor-parent.js: N children answering an agent-sized
// reply, asked in groups taking turns over the poll interval, sized by nodesup's rule) as a leg of its own,
// measured as the primary is, in turns with this checkout's primary (and the old one's with
// --old); reported as primary ÷ floor per pair with its 95 % interval: the share of the cost that
// is nodesup's and not the channel's, with the host's load falling on both. Section
// primary-cost-vs-floor.
//   node bench/primary-cost.js --floor [--old DIR] --counts 128 [--pairs 4] [--write]
//
// `--together S` (with --floor, --old DIR optional): the floor, the old primary and this one run
// at the same time, N workers each, for S seconds after all are ready; each one's CPU is read
// every minute. The host's load falls on all three at once, and the minutes show what a leg
// measured in the first minute cannot: how the primary's cost grows as the workers' sample history
// fills (10 minutes by default). Ratios per minute, and their 95 % interval over the minutes from
// the history's filling on. Section primary-cost-together. With --metrics the primaries run with
// metrics on, as by default, and each is scraped every 15 s, as Prometheus would (the floor serves
// none): what a primary costs as users run it.
//   node bench/primary-cost.js --floor --old DIR --together 780 --counts 128 [--metrics] [--write]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startNodesup, startPrimary, freePort, cleanupAll, scratch, delay } from './lib/spawn.js';
import { cpuMeter, rss, childrenOf } from './lib/proc.js';
import { pollGroups, GROUP_MIN } from '../src/primary/tick/group-size.js';
import { fx, mib, mean, max, slope, ci95 } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { validateConfig } from '../src/config/validate.js';
import { parseDuration } from '../src/units.js';
import { sampleHistoryMs } from '../src/primary/lifecycle/pool.js';
import { REPLY as FLOOR_REPLY } from './lib/ipc-floor-parent.js';
import { oldTree, pairOrder, ratioCi, ciText, verdict, OLD_USAGE } from './lib/versus.js';

const opts = benchArgs({
  counts: { type: 'string' }, window: { type: 'string' }, settle: { type: 'string' }, soak: { type: 'string' },
  'soak-workers': { type: 'string', default: '8' }, 'poll-interval': { type: 'string', default: '1s' },
  old: { type: 'string' }, pairs: { type: 'string' }, floor: { type: 'boolean', default: false }, together: { type: 'string' },
  metrics: { type: 'boolean', default: false }, 'floor-fixed': { type: 'string' },
}, `node bench/primary-cost.js [--quick] [--write] [--counts 8,32,128] [--window S] [--settle S] [--old DIR [--pairs N]] [--floor] [--together S [--metrics] [--floor-fixed SIZE]] | --soak S [--soak-workers 8]\n  ${OLD_USAGE}`);
if ((opts.old || opts.floor) && opts.soak) { process.stderr.write('--old or --floor, and --soak: one or the other\n'); process.exit(2); }
const OLD = opts.old ? oldTree(opts.old) : null;
const PAIRS = Number(opts.pairs ?? (opts.quick ? 2 : 5));
// A smoke run of the side by side would spend most of its 16 minutes waiting on the tick ring,
// whose percentiles it does not need to prove the pairing works.
const RING_WAIT = !((OLD || opts.floor) && opts.quick);
const COUNTS = (opts.counts ?? (opts.quick ? '8,16' : '8,32,128')).split(',').map(Number);
const WINDOW = Number(opts.window ?? (opts.quick ? 10 : 30));
const SETTLE = Number(opts.settle ?? (opts.quick ? 3 : 10));
const APP = path.join(ROOT, 'bench/apps/idle.js');
const TARGETS = { 8: 1, 128: 2 }; // % of a core (issue 11: ≤ 2 % at 128, and a tick p99 ≤ 100 ms)
const TICK_P99_TARGET_MS = 100;
const TICK_RING = 120; // the supervisor's pollStats: a DurationRing of the last 120 ticks

/** Start n idle workers under the nodesup of the checkout at root; resolves once all are ready. */
async function startIdle(n, { metricsPort = null, root = ROOT } = {}) {
  const dir = scratch();
  const config = path.join(dir, 'bench.config.mjs');
  fs.writeFileSync(config, `export default ${JSON.stringify({
    workers: n, pollInterval: opts['poll-interval'], metrics: metricsPort ? { host: '127.0.0.1', port: metricsPort } : false, log: { format: 'json' },
    // 128 workers starting on 2 cores take a while; a first start must not be judged by the default 30s.
    recycle: { readyTimeout: '10m' },
  }, null, 2)};\n`);
  const run = startNodesup([APP, '-c', config], { env: { PORT: String(await freePort()) }, cwd: dir, root });
  const start = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
  const t0 = Date.now();
  await run.waitReady(n, { timeout: 15 * 60_000 });
  return { run, pid: start.primaryPid, startupSec: (Date.now() - t0) / 1000 };
}

const incidents = (run, since) => run.events.filter((e) => e.at >= since && ['worker.recycle', 'worker.restart', 'worker.exit'].includes(e.event)).length;

/** Settle time before a window, s: long enough that the tick ring holds no start-up tick. */
function settleSec(n) {
  // Counted at 16 a group: once the size has grown, the ring reaches further back than this.
  const ringSec = (TICK_RING / pollGroups(n)) * (parseDuration(opts['poll-interval']) / 1000);
  return Math.max(SETTLE, RING_WAIT ? ringSec - WINDOW + 2 : 0);
}

/** The CPU of pid and the sum of its children's over a WINDOW s window, and pid's RSS every second. */
async function measure(pid) {
  const rssSamples = [];
  const cpu = cpuMeter(pid);
  // The agents' cost too: an idle worker woken by every poll (and its loop-delay timer) is CPU the host pays.
  const agents = childrenOf(pid).map((k) => cpuMeter(k));
  cpu.start();
  for (const a of agents) a.start();
  for (let t = 0; t < WINDOW; t++) {
    await delay(1000);
    rssSamples.push(rss(pid));
  }
  const c = cpu.stop();
  const agentCpu = agents.map((a) => a.stop()?.percent).filter((x) => x != null);
  return { cpu: c?.percent ?? null, agentCpu: agentCpu.reduce((a, b) => a + b, 0), rss: rssSamples.at(-1), rssMax: max(rssSamples), rssMean: mean(rssSamples) };
}

async function cost(n, root = ROOT) {
  const { run, pid, startupSec } = await startIdle(n, { root });
  try {
    // The tick percentiles come from the primary's last TICK_RING ticks: settle long enough that
    // none of them is from the start-up, when the workers were still loading.
    await delay(settleSec(n) * 1000);
    const since = Date.now();
    const m = await measure(pid);
    const snap = await run.status(); // after the window: the request itself costs the primary a little
    const workers = childrenOf(pid).map(rss).filter((x) => x !== null);
    return { n, startupSec, ...m, poll: snap.poll ?? {}, workerRss: mean(workers), incidents: incidents(run, since) };
  } finally {
    await run.stop(120_000);
  }
}

/** The IPC floor at n children, measured as a primary is, after the same settling. */
async function floorCost(n) {
  const run = startPrimary([path.join(ROOT, 'bench/lib/ipc-floor-parent.js'), String(n), String(parseDuration(opts['poll-interval']))], { name: 'ipc floor' });
  try {
    const t0 = Date.now();
    await run.waitFor((e) => e.event === 'floor.ready', { timeout: 15 * 60_000, what: 'floor.ready' });
    const startupSec = (Date.now() - t0) / 1000;
    await delay(settleSec(n) * 1000);
    return { n, startupSec, ...(await measure(run.pid)), poll: {}, incidents: 0 };
  } finally {
    await run.stop(30_000);
  }
}

// The sample history each worker keeps under the soak's config (defaults for leak), in seconds.
const HISTORY_S = sampleHistoryMs(validateConfig({}, 'bench')) / 1000;
const FLOOR_S = 120;

async function soak(seconds) {
  const n = Number(opts['soak-workers']);
  // Metrics on and scraped every 10 s, as Prometheus would: a leak in the metrics path counts too.
  const metricsPort = await freePort();
  const { run, pid } = await startIdle(n, { metricsPort });
  let scrapes = 0;
  try {
    await delay(SETTLE * 1000);
    const since = Date.now();
    const points = [];
    const heap = []; // the primary's V8 heapUsed from each scrape (prom-client's default metrics)
    const cpu = cpuMeter(pid);
    cpu.start();
    for (let t = 0; t <= seconds; t += 10) {
      if (t) await delay(10_000);
      const body = await scrape(metricsPort);
      if (body !== null) scrapes++;
      const used = Number(/^nodesup_primary_nodejs_heap_size_used_bytes (\S+)$/m.exec(body ?? '')?.[1]);
      if (Number.isFinite(used)) heap.push({ x: t, y: used });
      points.push({ x: t, y: rss(pid) });
      process.stderr.write(`soak ${t}s: primary RSS ${mib(points.at(-1).y)} MiB, heap used ${mib(heap.at(-1)?.y ?? null)} MiB\n`);
    }
    const c = cpu.stop();
    const snap = await run.status();
    const ys = points.map((p) => p.y);
    const perMin = (pts) => { const s = slope(pts); return s === null ? null : (s * 60) / 1024; };
    const full = points.filter((p) => p.x >= HISTORY_S);
    // heapUsed at a scrape holds whatever garbage the last GC left; its lowest value over each
    // FLOOR_S is close to the live heap after a GC, the figure a leak of nodesup's own would raise.
    const floors = [];
    for (let from = 0; from <= seconds - FLOOR_S; from += FLOOR_S) {
      const inBucket = heap.filter((p) => p.x >= from && p.x < from + FLOOR_S).map((p) => p.y);
      if (inBucket.length) floors.push({ x: from + FLOOR_S, y: Math.min(...inBucket) });
    }
    const fullFloors = floors.filter((p) => p.x - FLOOR_S >= HISTORY_S);
    const body = [
      `${n} idle workers (\`bench/apps/idle.js\`), pollInterval ${opts['poll-interval']}, metrics on and \`/metrics\` scraped every 10 s (${scrapes} scrapes answered), for ${seconds} s after all were ready and ${SETTLE} s of settling; the primary's RSS (smaps_rollup) every 10 s, right after each scrape, and its V8 heap used from each scrape (\`nodesup_primary_nodejs_heap_size_used_bytes\`). Heap floor: the lowest heap used in each ${FLOOR_S} s, close to the live heap after a GC. Each worker's sample history holds ${HISTORY_S / 60} minutes (max(1.25 × leak.window, 10 min)), so the primary grows by design until it is full; the slopes from then on say whether nodesup leaks itself: the heap floor's for its JS objects, RSS's for everything (malloc, V8's pages).`,
      '',
      table(['samples', 'RSS first / last / max MiB', 'RSS slope, KiB/min (all)', `RSS slope, KiB/min (t ≥ ${HISTORY_S} s, history full)`, 'heap floor first / last MiB', `heap floor slope, KiB/min (history full)`, 'primary CPU, % of a core', 'poll tick p50 / p99 ms', 'recycles, restarts, exits'], [[
        points.length, `${mib(ys[0])} / ${mib(ys.at(-1))} / ${mib(max(ys))}`, fx(perMin(points), 1), full.length >= 6 ? fx(perMin(full), 1) : '- (run ≥ 900 s)',
        `${mib(floors[0]?.y ?? null, 2)} / ${mib(floors.at(-1)?.y ?? null, 2)}`, fullFloors.length >= 3 ? fx(perMin(fullFloors), 1) : `- (run ≥ ${HISTORY_S + 3 * FLOOR_S} s)`,
        fx(c.percent, 2), `${fx(snap.poll.p50Ms, 2)} / ${fx(snap.poll.p99Ms, 2)}`, incidents(run, since),
      ]]),
      '',
      `RSS series, MiB: ${ys.map((y) => mib(y)).join(', ')}.`,
      '',
      `Heap floor series (every ${FLOOR_S} s), MiB: ${floors.map((p) => mib(p.y, 2)).join(', ')}.`,
    ].join('\n');
    publish(opts, 'primary-soak', `The primary's memory over a ${seconds} s soak`, body);
  } finally {
    await run.stop(120_000);
  }
}

/** GET /metrics on a fresh connection; the body when it answered 200, else null. */
function scrape(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/metrics', agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve(res.statusCode === 200 ? body : null));
    });
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
  });
}

async function versusOld() {
  const trees = { old: OLD.root, new: ROOT };
  const legs = [];
  for (let i = 0; i < PAIRS; i++) {
    for (const n of COUNTS) {
      for (const kind of pairOrder(i)) {
        const r = { ...(await cost(n, trees[kind])), kind, pair: i };
        legs.push(r);
        process.stderr.write(`pair ${i + 1}/${PAIRS}, ${n} workers, ${kind}: CPU ${fx(r.cpu, 2)} %, RSS ${mib(r.rssMean)} MiB (mean), poll p50 ${fx(r.poll.p50Ms, 2)} ms p99 ${fx(r.poll.p99Ms, 2)} ms, incidents ${r.incidents}\n`);
      }
    }
  }
  const of = (kind, n) => legs.filter((l) => l.kind === kind && l.n === n).sort((a, b) => a.pair - b.pair);
  const field = (kind, n, f) => of(kind, n).map(f);
  const rows = [];
  const verdicts = [];
  for (const n of COUNTS) {
    const cpu = ratioCi(field('old', n, (l) => l.cpu), field('new', n, (l) => l.cpu));
    const rss = ratioCi(field('old', n, (l) => l.rssMean), field('new', n, (l) => l.rssMean));
    // Idle at 8 workers the primary uses a few clock ticks a second: a ratio of so few swings
    // wide, the difference in points does not.
    const olds = field('old', n, (l) => l.cpu);
    const diffs = field('new', n, (l) => l.cpu).map((c, k) => c - olds[k]).filter(Number.isFinite);
    const diff = ci95(diffs);
    const avg = (kind, f, digits) => fx(mean(field(kind, n, f)), digits);
    rows.push([n, `${avg('old', (l) => l.cpu, 2)} / ${avg('new', (l) => l.cpu, 2)}`, ciText(cpu.ci, 2), ciText(diff, 2),
      `${mib(mean(field('old', n, (l) => l.rssMean)))} / ${mib(mean(field('new', n, (l) => l.rssMean)))}`, ciText(rss.ci, 3),
      `${avg('old', (l) => l.poll.p50Ms, 1)} / ${avg('new', (l) => l.poll.p50Ms, 1)}`, `${avg('old', (l) => l.poll.p99Ms, 1)} / ${avg('new', (l) => l.poll.p99Ms, 1)}`,
      `${avg('old', (l) => l.agentCpu, 1)} / ${avg('new', (l) => l.agentCpu, 1)}`,
      legs.filter((l) => l.n === n).reduce((a, l) => a + l.incidents, 0)]);
    verdicts.push(`${n} workers: CPU (new − old) ${verdict({ ratios: diffs, ci: diff }, { better: 'lower', at: 0 })}, RSS (new ÷ old) ${verdict(rss, { better: 'lower' })}`);
  }
  const body = [
    `N idle workers (\`bench/apps/idle.js\`) under the primary of the old checkout (${OLD.commit}) and of this one, pollInterval ${opts['poll-interval']}, metrics off, defaults otherwise; ${PAIRS} pairs, each measuring every count with old and new in turns (old first in odd-numbered pairs, new first in even ones). Each leg: fresh primary, all N ready, ${SETTLE} s of settling${RING_WAIT ? ' (longer where the last 120 ticks would otherwise reach back into the start-up)' : ' (not longer: the tick percentiles may reach back into the start-up)'}, then a ${WINDOW} s window: the primary's CPU (utime+stime from /proc/<pid>/stat over wall time, % of one core) and its RSS (smaps_rollup, every 1 s, the mean of the window). Poll tick p50 / p99 from each side's \`nodesup status --json\`. Ratios: the mean of the pairs' new ÷ old, with its 95 % interval.`,
    '',
    table(['workers', 'primary CPU, % of a core, old / new', 'CPU new ÷ old (95 % interval)', 'CPU new − old, points (95 % interval)', 'primary RSS MiB, old / new', 'RSS new ÷ old (95 % interval)', 'poll tick p50 ms, old / new', 'poll tick p99 ms, old / new', 'workers\' CPU (sum), old / new', 'recycles, restarts, exits in windows'], rows),
    '',
    `**${verdicts.join('; ')}.**`,
    '',
    `Legs in order (CPU %, RSS MiB): ${legs.map((l) => `${l.n} ${l.kind} ${fx(l.cpu, 2)} ${mib(l.rssMean)}`).join(', ')}.`,
  ].join('\n');
  publish(opts, 'primary-cost-vs-old', `The primary's own cost, old (${OLD.commit}) against new`, body);
}

// The kinds of leg in pair i, in turns: each kind goes first in every len-th pair, so a host that
// slows down over a pair falls on each kind alike.
const turnOrder = (kinds, i) => kinds.map((_, k) => kinds[(i + k) % kinds.length]);

async function versusFloor() {
  const kinds = OLD ? ['old', 'new', 'floor'] : ['new', 'floor'];
  const loadAtStart = os.loadavg()[0];
  const legs = [];
  for (let i = 0; i < PAIRS; i++) {
    for (const n of COUNTS) {
      for (const kind of turnOrder(kinds, i)) {
        const r = { ...(kind === 'floor' ? await floorCost(n) : await cost(n, kind === 'old' ? OLD.root : ROOT)), kind, pair: i };
        legs.push(r);
        process.stderr.write(`round ${i + 1}/${PAIRS}, ${n} workers, ${kind}: CPU ${fx(r.cpu, 2)} %, children's CPU ${fx(r.agentCpu, 1)} %, RSS ${mib(r.rssMean)} MiB (mean), incidents ${r.incidents}\n`);
      }
    }
  }
  const field = (kind, n, f) => legs.filter((l) => l.kind === kind && l.n === n).sort((a, b) => a.pair - b.pair).map(f);
  const cpus = (kind, n) => field(kind, n, (l) => l.cpu);
  const avg = (kind, n, f, digits) => fx(mean(field(kind, n, f)), digits);
  const rows = [];
  const verdicts = [];
  for (const n of COUNTS) {
    const newFloor = ratioCi(cpus('floor', n), cpus('new', n));
    const row = [n, avg('floor', n, (l) => l.cpu, 2), avg('new', n, (l) => l.cpu, 2), ciText(newFloor.ci, 2)];
    if (OLD) {
      const oldFloor = ratioCi(cpus('floor', n), cpus('old', n));
      const newOld = ratioCi(cpus('old', n), cpus('new', n));
      row.push(avg('old', n, (l) => l.cpu, 2), ciText(oldFloor.ci, 2), ciText(newOld.ci, 2));
      verdicts.push(`${n} workers: new ÷ old ${verdict(newOld, { better: 'lower' })}`);
    }
    row.push(kinds.map((k) => avg(k, n, (l) => l.agentCpu, 1)).join(' / '), kinds.filter((k) => k !== 'floor').map((k) => `${avg(k, n, (l) => l.poll.p50Ms, 1)} / ${avg(k, n, (l) => l.poll.p99Ms, 1)}`).join(', '),
      legs.filter((l) => l.n === n).reduce((a, l) => a + l.incidents, 0));
    const [, , hi] = newFloor.ci;
    verdicts.push(`${n} workers: new ÷ floor ${hi <= 1.5 ? 'at most 1.5 (the whole interval)' : `not shown ≤ 1.5 (the interval reaches ${fx(hi, 2)})`}`);
    rows.push(row);
  }
  const heads = ['workers', 'floor CPU, % of a core', 'new CPU, % of a core', 'new ÷ floor (95 % interval)',
    ...(OLD ? ['old CPU, % of a core', 'old ÷ floor (95 % interval)', 'new ÷ old (95 % interval)'] : []),
    `children's CPU (sum), ${kinds.join(' / ')}`, `poll tick p50 / p99 ms, ${kinds.filter((k) => k !== 'floor').join(', ')}`, 'recycles, restarts, exits in windows'];
  const body = [
    `N idle workers (\`bench/apps/idle.js\`) under this checkout's primary${OLD ? ` and under the old checkout's (${OLD.commit})` : ''}, pollInterval ${opts['poll-interval']}, metrics off, defaults otherwise, against the IPC floor: \`bench/lib/ipc-floor-parent.js\`, N forked children that answer a ${JSON.stringify(FLOOR_REPLY).length}-byte reply at once, asked in groups that take turns over the poll interval, sized as nodesup's tick sizes them (its group-size rule is the only nodesup code in it). ${PAIRS} rounds, each measuring every kind once, in turns (the first leg of a round moves one kind on each round). Each leg: a fresh process, all N children answering, ${SETTLE} s of settling${RING_WAIT ? ' (longer where the last 120 ticks would otherwise reach back into the start-up)' : ''}, then a ${WINDOW} s window: the process's CPU (utime+stime from /proc/<pid>/stat over wall time, % of one core). Ratios: the mean over the rounds of each round's ratio, with its 95 % interval.`,
    '',
    table(heads, rows),
    '',
    `**${verdicts.join('; ')}.**`,
    '',
    `Host load (1-minute average, ${os.cpus().length} CPUs) at the start / end of the run: ${fx(loadAtStart, 1)} / ${fx(os.loadavg()[0], 1)}.`,
    '',
    `Legs in order (CPU %): ${legs.map((l) => `${l.n} ${l.kind} ${fx(l.cpu, 2)}`).join(', ')}.`,
  ].join('\n');
  publish(opts, 'primary-cost-vs-floor', `The primary's own cost against the IPC floor${OLD ? `, old (${OLD.commit}) and new` : ''}`, body);
}

const SCRAPE_MS = 15_000;

async function together(seconds) {
  const n = COUNTS[0];
  const fixed = opts['floor-fixed'] ? Number(opts['floor-fixed']) : null;
  const floors = fixed ? ['floor', `floor-${fixed}`] : ['floor'];
  const kinds = [...(OLD ? ['old', 'new'] : ['new']), ...floors];
  const primaries = kinds.filter((k) => !floors.includes(k));
  const loadAtStart = os.loadavg()[0];
  // One after another up to ready (128 workers starting at once on a small host take minutes each),
  // then all measured over the same minutes.
  const legs = {};
  let scraper = null;
  try {
    for (const kind of kinds) {
      if (floors.includes(kind)) {
        const group = kind === 'floor' ? 'follow' : String(fixed);
        const run = startPrimary([path.join(ROOT, 'bench/lib/ipc-floor-parent.js'), String(n), String(parseDuration(opts['poll-interval'])), group], { name: 'ipc floor' });
        await run.waitFor((e) => e.event === 'floor.ready', { timeout: 15 * 60_000, what: 'floor.ready' });
        legs[kind] = { run, pid: run.pid };
      } else {
        const metricsPort = opts.metrics ? await freePort() : null;
        legs[kind] = { ...await startIdle(n, { root: kind === 'old' ? OLD.root : ROOT, metricsPort }), metricsPort };
      }
      legs[kind].readyAt = Date.now();
      process.stderr.write(`${kind}: ${n} ready\n`);
    }
    scraper = opts.metrics ? setInterval(() => {
      for (const k of kinds) if (legs[k].metricsPort) scrape(legs[k].metricsPort).catch(() => {});
    }, SCRAPE_MS) : null;
    const minutes = [];
    for (let m = 0; m < Math.floor(seconds / 60); m++) {
      const meters = Object.fromEntries(kinds.map((k) => [k, cpuMeter(legs[k].pid)]));
      for (const k of kinds) meters[k].start();
      await delay(60_000);
      const row = { minute: m + 1, load: os.loadavg()[0] };
      for (const k of kinds) row[k] = meters[k].stop()?.percent ?? null;
      // How much history the newest of the primaries has: its workers were ready this long ago.
      row.historySec = Math.round((Date.now() - legs[primaries.at(-1)].readyAt) / 1000);
      // Each primary's tick round trip over its last 120 ticks, and the group size it polls at.
      for (const k of primaries) row[`${k}Poll`] = (await legs[k].run.status().catch(() => null))?.poll ?? {};
      row.floorGroup = legs.floor.run.events.findLast((e) => e.event === 'floor.group')?.size ?? GROUP_MIN;
      minutes.push(row);
      process.stderr.write(`minute ${m + 1}: ${kinds.map((k) => `${k} ${fx(row[k], 2)} %`).join(', ')}, load ${fx(row.load, 1)}\n`);
    }
    const full = minutes.filter((r) => r.historySec >= HISTORY_S);
    const over = (rows, a, b) => ratioCi(rows.map((r) => r[b]), rows.map((r) => r[a]));
    const pairs = [...primaries.flatMap((k) => floors.map((f) => [k, f])), ...(OLD ? [['new', 'old']] : [])];
    const body = [
      `${n} idle workers (\`bench/apps/idle.js\`) under this checkout's primary${OLD ? ` and ${n} under the old checkout's (${OLD.commit})` : ''}, pollInterval ${opts['poll-interval']}, ${opts.metrics ? `metrics on and \`/metrics\` scraped every ${SCRAPE_MS / 1000} s` : 'metrics off'}, and the IPC floor (\`bench/lib/ipc-floor-parent.js\`: ${n} children answering a ${JSON.stringify(FLOOR_REPLY).length}-byte reply, asked in groups that take turns over the poll interval, sized as nodesup's tick sizes them${fixed ? `; floor-${fixed}: the same, in groups held at ${fixed}` : ''}), all running at the same time; each started once the one before was ready (${kinds.join(', ')}). Every minute, each process's CPU over that minute (utime+stime from /proc/<pid>/stat, % of one core), and each primary's tick round trip (p99 over its last 120 ticks, \`nodesup status --json\` → poll) and group size then. History: how long the last primary's workers had been ready at the minute's end; each worker keeps ${HISTORY_S / 60} minutes of samples, which the decision reads every second.`,
      '',
      table(['minute', 'history s', ...kinds.map((k) => `${k} CPU, % of a core`), ...pairs.map(([a, b]) => `${a} ÷ ${b}`), ...primaries.map((k) => `${k} tick p99 ms / group`), 'floor group', 'host load (1 min)'],
        minutes.map((r) => [r.minute, r.historySec, ...kinds.map((k) => fx(r[k], 2)), ...pairs.map(([a, b]) => fx(r[a] / r[b], 2)),
          ...primaries.map((k) => `${fx(r[`${k}Poll`].p99Ms, 1)} / ${r[`${k}Poll`].group ?? GROUP_MIN}`), r.floorGroup, fx(r.load, 1)])),
      '',
      full.length >= 2
        ? `**From the history's filling on (${full.length} minutes): ${pairs.map(([a, b]) => `${a} ÷ ${b} ${ciText(over(full, a, b).ci, 2)}`).join(', ')} (the mean of the minutes' ratios, 95 % interval over the minutes).**`
        : minutes.length >= 3
          ? `**From minute 2 on (${minutes.length - 1} minutes, the history not full yet: run ≥ ${HISTORY_S + 60} s for a full one): ${pairs.map(([a, b]) => `${a} ÷ ${b} ${ciText(over(minutes.slice(1), a, b).ci, 2)}`).join(', ')} (the mean of the minutes' ratios, 95 % interval over the minutes).**`
          : `Fewer than 2 minutes with a full history (run ≥ ${HISTORY_S + 60} s for an interval over them).`,
      '',
      `Host load (1-minute average, ${os.cpus().length} CPUs) at the start / end of the run: ${fx(loadAtStart, 1)} / ${fx(os.loadavg()[0], 1)}.`,
    ].join('\n');
    publish(opts, 'primary-cost-together', `The primary's cost as the history fills: ${OLD ? 'old, new' : 'new'} and the IPC floor at the same time`, body);
  } finally {
    clearInterval(scraper);
    for (const k of kinds) await legs[k]?.run.stop(120_000);
  }
}

async function main() {
  if (opts.soak) return soak(Number(opts.soak));
  if (opts.together) return together(Number(opts.together));
  if (opts.floor) return versusFloor();
  if (OLD) return versusOld();
  const rows = [];
  for (const n of COUNTS) {
    const r = await cost(n);
    rows.push(r);
    process.stderr.write(`${n} workers: CPU ${fx(r.cpu, 2)} %, workers' CPU ${fx(r.agentCpu, 1)} %, RSS ${mib(r.rss)} MiB, poll p50 ${r.poll.p50Ms} ms p99 ${r.poll.p99Ms} ms\n`);
  }
  const body = [
    `N idle workers (\`bench/apps/idle.js\`), pollInterval ${opts['poll-interval']}, metrics off, defaults otherwise. After all N are ready and ${SETTLE} s of settling (longer where the last 120 ticks would otherwise reach back into the start-up), a ${WINDOW} s window: the primary's CPU (utime+stime from /proc/<pid>/stat over wall time, % of one core) and RSS (smaps_rollup, every 1 s). Poll tick: wall time of one tick (requests out → last reply, /proc reads included) from \`nodesup status --json\` → \`poll\`, over the last 120 ticks; past 16 workers a tick polls one group of slots (16 at first, more while the host answers fast: the groups column is the last size's) and the groups take turns over the poll interval, so every worker is still sampled once a second. Workers' CPU: the sum over every worker process of the same measure (an idle worker's cost is its agent's).`,
    '',
    table(['workers', 'ready after s', 'primary CPU, % of a core', 'target', 'primary RSS MiB (end / max)', 'groups', 'poll tick p50 / p99 / max ms', 'tick p99 target', 'ticks', 'workers\' CPU, % of a core (sum / each)', 'worker RSS MiB (mean)', 'recycles, restarts, exits in window'], rows.map((r) => [
      r.n, fx(r.startupSec, 1), fx(r.cpu, 2), TARGETS[r.n] ? `≤ ${TARGETS[r.n]} %: ${r.cpu <= TARGETS[r.n] ? 'met' : 'missed'}` : '-',
      `${mib(r.rss)} / ${mib(r.rssMax)}`, pollGroups(r.n, r.poll.group ?? GROUP_MIN), `${fx(r.poll.p50Ms, 2)} / ${fx(r.poll.p99Ms, 2)} / ${fx(r.poll.maxMs, 1)}`,
      r.n === 128 ? `≤ ${TICK_P99_TARGET_MS} ms: ${r.poll.p99Ms <= TICK_P99_TARGET_MS ? 'met' : 'missed'}` : '-', r.poll.count,
      `${fx(r.agentCpu, 1)} / ${fx(r.agentCpu / r.n, 2)}`, mib(r.workerRss), r.incidents,
    ])),
  ].join('\n');
  publish(opts, 'primary-cost', "The primary's own cost", body);
}

main().catch((err) => { process.stderr.write(`primary-cost: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
