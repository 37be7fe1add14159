// `npm run bench`: every benchmark in sequence, each with --write so it replaces its own section
// of bench/RESULTS.md. `--quick` is passed through (a smoke run of everything, ~12 minutes);
// `--results FILE` too. Run it on a quiet machine: other load skews every figure.
//   npm run bench            # full: well over an hour, 40 minutes of it the primary's memory soak
//   npm run bench -- --quick
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';

const opts = benchArgs({ only: { type: 'string' } }, 'node bench/run-all.js [--quick] [--results FILE] [--only overhead,recycles,…]');
const pass = [...(opts.quick ? ['--quick'] : []), ...(opts.results ? ['--results', opts.results] : [])];
const steps = [
  ['overhead', ['bench/overhead.js']],
  ['overhead-together', ['bench/overhead-together.js']],
  ['recycles', ['bench/recycles.js']],
  ['detection', ['bench/detection.js']],
  // The issue's 60 s target, tried: a window short enough for it, and what that costs healthy apps.
  ['detection-20s', ['bench/detection.js', '--window', '20s', '--duration', '330', '--section', 'detection-20s']],
  ['detection-latency', ['bench/detection-latency.js']],
  ['primary-cost', ['bench/primary-cost.js']],
  ['primary-soak', ['bench/primary-cost.js', '--soak', opts.quick ? '60' : '2400']],
  ['pm2', ['bench/pm2.js']],
  ['overshoot', ['bench/overshoot.js']],
  ['sites-cost', ['bench/sites-cost.js']],
  ['buffer-sampler-cost', ['bench/buffer-sampler-cost.js']],
  ['tick-shapes', ['bench/tick-shapes.js']],
  ['primary-footprint', ['bench/primary-footprint.js']],
  ['quickstart', ['bench/quickstart.js']],
  ['ipc-floor', ['bench/ipc-floor.js']],
];
const only = opts.only ? new Set(opts.only.split(',')) : null;
const failed = [];
for (const [name, argv] of steps) {
  if (only && !only.has(name)) continue;
  const t0 = Date.now();
  process.stdout.write(`\n=== ${name}: node ${argv.join(' ')} --write ${pass.join(' ')}\n`);
  const r = spawnSync(process.execPath, [...argv.map((a) => (a.startsWith('bench/') ? path.join(ROOT, a) : a)), '--write', ...pass], { stdio: 'inherit', cwd: ROOT });
  const secs = ((Date.now() - t0) / 1000).toFixed(0);
  if (r.status !== 0) failed.push(name);
  process.stdout.write(`=== ${name}: ${r.status === 0 ? 'done' : `FAILED (exit ${r.status ?? r.signal})`} in ${secs} s\n`);
}
if (failed.length) {
  process.stdout.write(`\nfailed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
