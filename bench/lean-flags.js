// What a V8 flag of the lean primary costs where the primary routes the connections: nodesup's
// round-robin as it runs (its lean flags), the same started as `node <flag> nodesup start` (a
// flag the user sets is kept), and a bare node:cluster primary, in turns, under a new connection
// per request (the load where the primary runs cluster's JS for every request). Throughput, the
// primary's CPU, and its RSS at rest (after ready) and after the load: what the flag costs in
// memory beside what it costs in time. Ratios are the mean of the rounds' ratios with their 95 %
// interval. `--flag=--lite-mode` (section lean-flags): no JIT at all; `--flag=--turbofan` (the
// default, section lean-flags-turbofan): TurboFan beside Maglev, which the lean primary leaves out.
//   node bench/lean-flags.js [--quick] [--write] [--flag=--turbofan] [--rounds 6] [--duration 6] [--workers 2]
// Needs process.execve (Node 22.15+): without it there is no lean primary to compare.
import path from 'node:path';
import fs from 'node:fs';
import { benchArgs, ROOT } from './lib/args.js';
import { startPrimary, freePort, cleanupAll, scratch, connLoad, BIN, delay } from './lib/spawn.js';
import { cpuMeter, rss } from './lib/proc.js';
import { mean, fx, int, ci95 } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { leanFlags } from '../src/cli/lean-launch.js';

const opts = benchArgs({
  rounds: { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string', default: '32' }, workers: { type: 'string', default: '2' },
  flag: { type: 'string', default: '--turbofan' },
}, 'node bench/lean-flags.js [--quick] [--write] [--flag=--turbofan|--flag=--lite-mode] [--rounds N] [--duration S] [--connections C] [--workers N]');
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 2 : 6));
const DURATION = Number(opts.duration ?? (opts.quick ? 2 : 6));
const CONNECTIONS = Number(opts.connections);
const WORKERS = Number(opts.workers);
const HELLO = path.join(ROOT, 'bench/apps/hello.js');
const BARE = path.join(ROOT, 'bench/apps/bare-primary.js');
const FLAG = opts.flag;
const LEGS = ['bare round-robin', 'nodesup round-robin, as it runs', `nodesup round-robin, ${FLAG}`];
const LEAN = leanFlags([], { workers: WORKERS, balance: 'round-robin' });
const MiB = 1024 * 1024;

function start(leg, port) {
  const env = { PORT: String(port), WORKERS: String(WORKERS) };
  if (leg === 'bare round-robin') return startPrimary([BARE, HELLO], { env, cwd: scratch(), name: leg });
  const dir = scratch('nodesup-lean-flags-');
  const cfg = path.join(dir, 'bench.config.mjs');
  fs.writeFileSync(cfg, `export default ${JSON.stringify({ workers: WORKERS, balance: 'round-robin', metrics: false })};\n`);
  // A V8 flag the user sets is kept by the lean primary, which then adds none of its own of that name.
  const flags = leg === LEGS[2] ? [FLAG] : [];
  const run = startPrimary([...flags, BIN, 'start', HELLO, '-c', cfg, '--log-format', 'json'], { env: { NODESUP_RUN_DIR: dir, ...env }, cwd: dir, name: leg });
  return run;
}

async function oneLeg(leg) {
  const port = await freePort();
  const run = start(leg, port);
  try {
    const started = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
    await run.waitReady(WORKERS, { timeout: 60_000 });
    const pid = started.primaryPid;
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (leg !== 'bare round-robin' && !cmd.some((a) => a.endsWith('lean-primary.js'))) throw new Error(`${leg}: no lean primary (process.execve needs Node 22.15+)`);
    if (cmd.includes(FLAG) !== (leg === LEGS[2])) throw new Error(`${leg}: the primary runs ${cmd.join(' ')}`);
    await delay(2000);
    const restRss = rss(pid);
    const url = `http://127.0.0.1:${port}/`;
    await connLoad({ url, connections: CONNECTIONS, duration: 1 }); // warm-up, discarded
    const cpu = cpuMeter(pid);
    cpu.start();
    const r = await connLoad({ url, connections: CONNECTIONS, duration: DURATION });
    return { leg, reqPerSec: r.reqPerSec, failed: r.failed, primaryCpu: cpu.stop()?.percent ?? null, restRss, loadedRss: rss(pid), requests: r.requests };
  } finally {
    await run.stop();
  }
}

function body(runs) {
  const of = (leg, f) => runs.filter((r) => r.leg === leg).map(f);
  const rows = LEGS.map((leg) => [leg, of(leg, () => 1).length, int(mean(of(leg, (r) => r.reqPerSec))), fx(mean(of(leg, (r) => r.primaryCpu)), 1),
    fx(mean(of(leg, (r) => (r.primaryCpu * 10_000) / r.reqPerSec)), 0), fx(mean(of(leg, (r) => r.restRss / MiB)), 1), fx(mean(of(leg, (r) => r.loadedRss / MiB)), 1), of(leg, (r) => r.failed).reduce((a, b) => a + b, 0)]);
  const ratio = (a, b, f = (r) => r.reqPerSec) => {
    const xs = of(a, f);
    const ys = of(b, f);
    const [m, lo, hi] = ci95(xs.map((x, i) => x / ys[i]));
    return `${fx(m, 3)} (95 % interval ${fx(lo, 3)}–${fx(hi, 3)})`;
  };
  return [
    `\`bench/apps/hello.js\`, ${WORKERS} workers, a new connection per request (${CONNECTIONS} loops, each from its own 127.0.x.y, \`bench/lib/conn-load.js\` in a process of its own) for ${DURATION} s after a 1 s warm-up, under three primaries in turns (the order rotated each round), ${ROUNDS} rounds: a bare node:cluster primary; nodesup's lean primary with \`balance: 'round-robin'\` as it runs (\`${LEAN.join(' ')}\`); the same started as \`node ${FLAG} nodesup start …\`. Primary CPU: utime+stime over the load, % of one core; µs a request: that CPU over the requests served. RSS at rest: 2 s after the workers were ready; after the load: at its end.`,
    '',
    table(['primary', 'runs', 'req/s mean', 'primary CPU, % of a core', 'primary CPU, µs a request', 'RSS at rest, MiB', 'RSS after the load, MiB', 'failed'], rows),
    '',
    `- **nodesup as it runs ÷ with ${FLAG}, req/s: ${ratio(LEGS[1], LEGS[2])}**; primary CPU a request: ${ratio(LEGS[1], LEGS[2], (r) => r.primaryCpu / r.reqPerSec)}`,
    `- nodesup as it runs ÷ bare, req/s: ${ratio(LEGS[1], LEGS[0])}; nodesup with ${FLAG} ÷ bare: ${ratio(LEGS[2], LEGS[0])}`,
    `- RSS at rest, as it runs ÷ with ${FLAG}: ${ratio(LEGS[1], LEGS[2], (r) => r.restRss)}; after the load: ${ratio(LEGS[1], LEGS[2], (r) => r.loadedRss)}; as it runs ÷ bare at rest: ${ratio(LEGS[1], LEGS[0], (r) => r.restRss)}`,
  ].join('\n');
}

async function main() {
  const runs = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = LEGS.map((_, i) => LEGS[(i + round) % LEGS.length]);
    for (const leg of order) {
      const r = await oneLeg(leg);
      runs.push(r);
      process.stderr.write(`round ${round + 1}/${ROUNDS}, ${leg}: ${fx(r.reqPerSec)} req/s, primary CPU ${fx(r.primaryCpu, 1)} %, RSS ${fx(r.restRss / MiB, 1)} → ${fx(r.loadedRss / MiB, 1)} MiB, failed ${r.failed}\n`);
    }
  }
  const section = FLAG === '--lite-mode' ? 'lean-flags' : `lean-flags-${FLAG.replace(/^--(no-)?/, '')}`;
  publish(opts, section, `The lean primary against ${FLAG} where it routes connections`, body(runs));
}

main().catch((err) => { process.stderr.write(`lean-flags: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
