// The decide step's own JS, in-process: what the primary's tick costs in judgement alone, apart
// from IPC and /proc. N idle workers (flat memory with a little noise, the fields an agent
// reports), their windows filled to a given age with one sample a second, then a simulated second
// at a time, as the primary ticks: one tick a group of --group workers (16, where nodesup starts), each group's workers
// sampled and judged on its own tick (decide's `only`), with the read model hearing every tick's
// judgements. Reported: CPU ms a simulated second (process.cpuUsage) at each history age, the mean
// of the rounds. A profile of the same loop: add --cpu-prof.
//   node bench/tick-cost.js [--write] [--workers 128] [--group 16] [--ages 60,300,600,900] [--ticks 60] [--rounds 5]
import { benchArgs } from './lib/args.js';
import { publish, table } from './lib/results.js';
import { fx, ci95, mean } from './lib/stats.js';
import { decide, newPolicyState } from '../src/core/policy/decide.js';
import { SampleWindow } from '../src/core/forecast/sample-window.js';
import { defaultConfig } from '../src/config/validate.js';
import { sampleHistoryMs } from '../src/primary/lifecycle/pool.js';
import { pollGroups, GROUP_MIN } from '../src/primary/tick/group-size.js';
import { EventEmitter } from 'node:events';
import { createReadModel } from '../src/report/read-model.js';
import { createHistory } from '../src/report/history/history.js';

const opts = benchArgs({
  workers: { type: 'string', default: '128' }, group: { type: 'string', default: String(GROUP_MIN) }, ages: { type: 'string', default: '60,300,600,900' },
  ticks: { type: 'string' }, rounds: { type: 'string' },
}, 'node bench/tick-cost.js [--quick] [--write] [--workers N] [--group N] [--ages S,S] [--ticks N] [--rounds N]');
const WORKERS = Number(opts.workers);
const AGES = opts.ages.split(',').map(Number);
const TICKS = Number(opts.ticks ?? (opts.quick ? 10 : 60));
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 2 : 5));
const MiB = 1024 * 1024;
const config = { ...defaultConfig(), workers: WORKERS };
const historyMs = sampleHistoryMs(config);

// A deterministic jitter, so every run judges the same series.
let seed = 1;
const noise = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;

// One idle worker's poll: memory flat within a few hundred KiB, counters creeping.
function sample(t, pid, i) {
  const heap = 9 * MiB + noise() * 0.4 * MiB;
  const rss = 52 * MiB + noise() * 0.2 * MiB;
  return {
    t, pid, rss, pss: rss * 0.8, anon: rss * 0.5, treeRss: rss, treePss: rss * 0.8, childrenRss: 0, children: 0, fds: 21,
    heapUsed: heap, heapTotal: 12 * MiB, heapLimit: 4096 * MiB, heapPhysical: 11 * MiB, heapFloor: heap - 0.5 * MiB,
    external: 1.6 * MiB, arrayBuffers: 0.1 * MiB, native: rss - 11 * MiB - 1.6 * MiB, newSpace: 1 * MiB,
    gcCount: i >> 3, gcMs: i >> 2, majorGcCount: i >> 7, minorGcCount: i >> 3, minorGcMs: i >> 3, gcFlags: [],
    elu: 0.001, delayP50: 10, delayP99: 11, delayMax: 12, cpuWaitShare: 0, requests: 0, handles: 3,
    resources: { TCPServerWrap: 1, Timeout: 1, PipeWrap: 1 }, threads: 0, threadsHeapUsed: 0, threadsHeapPhysical: 0, agent: true,
  };
}

function fleet(ageS, start) {
  return Array.from({ length: WORKERS }, (_, k) => {
    const window = new SampleWindow({ maxAgeMs: historyMs, maxSamples: Math.ceil(historyMs / config.pollInterval) + 8 });
    const w = { id: k + 1, slot: k, pid: 1000 + k, startedAt: start, readyAt: start + 500, lastReplyAt: 0, jitterDraw: 0, window };
    for (let s = 0; s < ageS; s++) window.push(sample(start + 1000 + s * 1000, w.pid, s));
    return w;
  });
}

// The report side as the primary has it: a read model that hears each worker and every tick's judgements.
function reportSide(workers) {
  const pool = new EventEmitter();
  const events = new EventEmitter();
  const model = createReadModel({ workers: pool, events, history: createHistory(events, WORKERS), run: { name: 'bench', startedAt: 0 } });
  for (const w of workers) pool.emit('changed', { id: w.id, slot: w.slot, pid: w.pid, state: 'ready', startedAt: w.startedAt, readyAt: w.readyAt, retiring: null, current: true });
  return { events, model };
}

// Simulated seconds at `ageS` seconds of history: each a tick per group of workers, each worker a
// new sample on its group's tick. CPU ms a second.
function round(ageS) {
  const start = 1_700_000_000_000;
  const workers = fleet(ageS, start);
  const report = reportSide(workers);
  let state = newPolicyState(WORKERS);
  const ctx = { config, totalLimit: null, cgroupLimit: null };
  let now = start + 1000 + (ageS - 1) * 1000;
  // A few ticks first: the policy state (advice said, steps found) as a running primary has it.
  for (let i = 0; i < 15; i++) state = tick(workers, state, (now += 1000), ctx, report, ageS + i);
  const before = process.cpuUsage();
  for (let i = 0; i < TICKS; i++) state = tick(workers, state, (now += 1000), ctx, report, ageS + 15 + i);
  const used = process.cpuUsage(before);
  report.model.close();
  return (used.user + used.system) / 1000 / TICKS;
}

const GROUPS = pollGroups(WORKERS, Number(opts.group));

function tick(workers, state, now, ctx, report, i) {
  for (let g = 0; g < GROUPS; g++) {
    const at = now + Math.round((g * config.pollInterval) / GROUPS);
    const group = workers.filter((w) => w.slot % GROUPS === g);
    for (const w of group) {
      w.window.push(sample(at, w.pid, i));
      w.lastReplyAt = at;
    }
    const out = decide(state, workers, at, { ...ctx, only: GROUPS > 1 ? new Set(group.map((w) => w.id)) : null });
    report.events.emit('judged', out.judgements);
    state = out.state;
  }
  return state;
}

// One round first, not counted: V8 compiles the decide step's code on it.
round(AGES[0]);
const rows = [];
for (const age of AGES) {
  const ms = [];
  for (let r = 0; r < ROUNDS; r++) ms.push(round(age));
  const [, lo, hi] = ci95(ms);
  rows.push([age, fx(mean(ms), 2), `${fx(lo, 2)}–${fx(hi, 2)}`, fx(mean(ms) / WORKERS * 1000, 1)]);
  process.stdout.write(`age ${age} s: ${ms.map((x) => x.toFixed(2)).join(', ')} ms a second\n`);
}

publish(opts, 'tick-cost', `The decide step's JS at ${WORKERS} idle workers, in-process`, `
The pure decide() over ${WORKERS} idle workers whose windows hold the given age of 1 s samples, ticking as
the primary does: ${GROUPS} tick(s) a simulated second, each sampling and judging one group of the workers
(slot % ${GROUPS}), the read model hearing each tick's judgements. CPU (process.cpuUsage) a simulated
second, mean of ${ROUNDS} rounds of ${TICKS} seconds with its 95 % interval: 10 ms a second is 1 % of a
core. IPC and /proc are not in it (bench/primary-cost.js measures the whole primary).

${table(['history (s)', 'ms a second', '95 %', 'µs a worker'], rows)}
`);
