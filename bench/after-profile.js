// What a worker is left with once a heap suspicion ends and the sites' profiler stops: its JS
// speed then, against the same work never profiled. V8 inlines small functions into their callers;
// while sites are sampled it must not (the profiler would file a callee's allocations under its
// caller), and whether the code is optimized with inlining again afterwards is what this measures.
// One process per leg (bench/apps/inlined-loop.js): never, after (this checkout's profiler) and,
// with --old DIR, after as the checkout at DIR stops it; legs in turns, the first moved each round.
// Reported: calls per ms of CPU, and after ÷ never (and new ÷ old) per round, with 95 % intervals.
//   node bench/after-profile.js [--rounds 8] [--old DIR] [--write]
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { benchArgs, ROOT } from './lib/args.js';
import { mean, fx, ci95 } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { oldTree, ratioCi, ciText, OLD_USAGE } from './lib/versus.js';

const opts = benchArgs({ rounds: { type: 'string' }, old: { type: 'string' } },
  `node bench/after-profile.js [--quick] [--write] [--rounds N] [--old DIR]\n  ${OLD_USAGE}`);
const OLD = opts.old ? oldTree(opts.old) : null;
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 2 : 8));
const APP = path.join(ROOT, 'bench/apps/inlined-loop.js');
const KINDS = ['never', 'after', ...(OLD ? ['after-old'] : [])];
const LOAD_AT_START = os.loadavg()[0];

function leg(kind) {
  const env = { ...process.env, MODE: kind === 'never' ? 'never' : 'after', ...(kind === 'after-old' ? { NODESUP_ROOT: OLD.root } : {}) };
  return JSON.parse(execFileSync(process.execPath, [APP], { env, timeout: 60_000 }).toString()).callsPerCpuMs;
}

const got = Object.fromEntries(KINDS.map((k) => [k, []]));
for (let i = 0; i < ROUNDS; i++) {
  for (let j = 0; j < KINDS.length; j++) {
    const kind = KINDS[(i + j) % KINDS.length];
    got[kind].push(leg(kind));
    process.stderr.write(`round ${i + 1}/${ROUNDS} ${kind}: ${fx(got[kind].at(-1), 0)} calls/ms\n`);
  }
}
const vsNever = (k) => ciText(ratioCi(got.never, got[k]).ci);
const label = { never: 'never profiled', after: 'after the profiler stopped (this checkout)', 'after-old': `after the profiler stopped (${OLD?.commit})` };
const rows = KINDS.map((k) => [label[k], fx(mean(got[k]), 0), k === 'never' ? '1' : vsNever(k)]);
const [, lo, hi] = ci95(got.never);
const body = [
  `\`bench/apps/inlined-loop.js\` on ${process.version}: a loop whose small allocating function V8 inlines into its caller, warmed up 1 s; then (after) the agent's heap profiler, as a suspicion runs it (\`deopt\`), for 1 s and stopped; 1 s of warm-up again, then 2 s measured: calls of the caller per ms of the process's CPU. One process per leg, ${ROUNDS} rounds, the kinds in turns. Ratios: per round, to the round's never leg, mean and 95 % interval.`,
  '',
  table(['leg', 'calls per CPU ms (mean)', '÷ never (95 % interval)'], rows),
  '',
  ...(OLD ? [`**new ÷ old, after: ${ciText(ratioCi(got['after-old'], got.after).ci)}** (95 % interval over the rounds).`, ''] : []),
  `Never profiled: ${fx(lo, 0)}–${fx(hi, 0)} calls per CPU ms (95 % interval of the mean). Host load (1-minute average, ${os.cpus().length} CPUs) at the start / end: ${LOAD_AT_START.toFixed(1)} / ${os.loadavg()[0].toFixed(1)}.`,
].join('\n');
publish(opts, 'after-profile', 'What a stopped profiler leaves: JS speed after a suspicion', body);
