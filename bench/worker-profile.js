// Where a worker's CPU goes under nodesup against a bare node:cluster worker, the same app and
// load: V8 CPU profiles (--cpu-prof) of one worker under each, both primaries up at once and loaded
// in turns. Reported: the share of the worker's busy samples in nodesup's own functions (the
// agent: request tracking, poll replies, the GC observer's callback), those functions, and the
// app's heaviest functions side by side. What a throughput ratio cannot say: whether a gap is the
// agent's code in the worker or something the profile does not hold (the primary, the host).
//   node bench/worker-profile.js [--quick] [--write] [--app hello|express] [--rounds 10] [--burst 3] [--leak-on]
// Leak detection is off unless --leak-on: a suspicion's profiler and forced GCs would be in the
// profile, and the overhead bench already splits its rounds by them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startPrimary, startNodesup, freePort, load, cleanupAll, scratch } from './lib/spawn.js';
import { fx, int } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { overheadApp } from './lib/overhead-apps.js';
import { profileShares } from './lib/cpu-profile.js';

const opts = benchArgs({
  app: { type: 'string', default: 'express' }, rounds: { type: 'string' }, burst: { type: 'string' },
  connections: { type: 'string', default: '32' }, 'leak-on': { type: 'boolean', default: false },
}, 'node bench/worker-profile.js [--quick] [--write] [--app hello|express] [--rounds N] [--burst S] [--connections C] [--leak-on]');
const APP_OF = overheadApp(opts.app);
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 2 : 10));
const BURST = Number(opts.burst ?? 3);
const CONNECTIONS = Number(opts.connections);
const APP = path.join(ROOT, APP_OF.file);
const TOP = 15;

async function startBoth() {
  const dirs = { bare: scratch('prof-bare-'), nodesup: scratch('prof-nodesup-') };
  const cfg = path.join(scratch(), 'profile.config.mjs');
  fs.writeFileSync(cfg, `export default ${JSON.stringify({ ...(opts['leak-on'] ? {} : { leak: false }), nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dirs.nodesup}`] })};\n`);
  const ports = { bare: await freePort(), nodesup: await freePort() };
  const runs = {
    // NODE_OPTIONS reaches the bare primary too: its own profile is told apart by pid.
    bare: startPrimary([path.join(ROOT, 'bench/apps/bare-primary.js'), APP], {
      env: { PORT: String(ports.bare), WORKERS: '1', NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dirs.bare}` }, cwd: scratch(), name: 'bare primary',
    }),
    nodesup: startNodesup([APP, '-w', '1', '--poll-interval', '1s', '--metrics', `127.0.0.1:${await freePort()}`, '--log-format', 'json', '-c', cfg], { env: { PORT: String(ports.nodesup) } }),
  };
  const out = {};
  for (const kind of ['bare', 'nodesup']) {
    const spawn = await runs[kind].waitFor((e) => e.event === 'worker.spawn', { what: 'worker.spawn' });
    await runs[kind].waitFor((e) => e.event === 'worker.ready', { what: 'worker.ready', timeout: 60_000 });
    out[kind] = { run: runs[kind], dir: dirs[kind], workerPid: spawn.pid, url: `http://127.0.0.1:${ports[kind]}${APP_OF.path}`, requests: 0 };
  }
  return out;
}

/** The worker's profile, written as it exited: the file named for its pid. */
function workerProfile({ dir, workerPid }) {
  const file = fs.readdirSync(dir).find((f) => f.endsWith(`.${workerPid}.0.001.cpuprofile`));
  if (!file) throw new Error(`no CPU profile of worker ${workerPid} in ${dir}: ${fs.readdirSync(dir).join(', ') || 'empty'}`);
  return JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
}

async function main() {
  const up = await startBoth();
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of i % 2 ? ['nodesup', 'bare'] : ['bare', 'nodesup']) {
      const r = await load({ url: up[kind].url, connections: CONNECTIONS, duration: BURST }).result;
      up[kind].requests += r.responses;
      process.stderr.write(`round ${i + 1}/${ROUNDS} ${kind}: ${int(r.reqPerSec.mean)} req/s\n`);
    }
  }
  // A worker writes its profile as it exits: both primaries stop their workers gracefully.
  for (const kind of ['bare', 'nodesup']) await up[kind].run.stop();
  const ours = (url) => url.includes(`${path.join(ROOT, 'src')}${path.sep}`);
  const shares = { bare: profileShares(workerProfile(up.bare), ours), nodesup: profileShares(workerProfile(up.nodesup), ours) };
  const pct = (x) => `${fx(100 * x, 2)} %`;
  const names = [...new Set([...shares.bare.top, ...shares.nodesup.top].map((f) => f.name))]
    .map((name) => ({ name, bare: shares.bare.of(name), nodesup: shares.nodesup.of(name) }))
    .sort((a, b) => b.bare + b.nodesup - a.bare - a.nodesup).slice(0, TOP);
  const body = [
    `\`${APP_OF.file}\` (${APP_OF.what}), 1 worker under a bare node:cluster primary and 1 under nodesup (poll 1s, metrics on, leak detection ${opts['leak-on'] ? 'on' : 'off'}), both up at once, each worker started with \`--cpu-prof\`; ${ROUNDS} rounds of a ${BURST} s burst on each (the order alternating), autocannon ${CONNECTIONS} keep-alive connections on 127.0.0.1; the profiles written as the workers exited. Shares are of the worker's busy samples (all but \`(idle)\`), by function (self time).`,
    '',
    table(['worker', 'requests', 'busy samples', 'samples a 1,000 requests', 'nodesup\'s functions', 'GC'], ['bare', 'nodesup'].map((k) => [
      k, int(up[k].requests), int(shares[k].busy), fx((1000 * shares[k].busy) / up[k].requests, 1), pct(shares[k].oursShare), pct(shares[k].gcShare),
    ])),
    '',
    `nodesup's functions in its worker, by self time: ${shares.nodesup.ours.slice(0, 8).map((f) => `${f.name} ${pct(f.share)}`).join('; ') || 'none sampled'}.`,
    '',
    table(['function (self time)', 'bare', 'nodesup'], names.map((f) => [f.name, pct(f.bare), pct(f.nodesup)])),
    '',
    `Host load (1-minute load average) at the end: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs.`,
  ].join('\n');
  publish(opts, `worker-profile-${opts.app}`, `Where a worker's CPU goes, bare against nodesup, ${opts.app} app`, body);
}

main().catch((err) => { process.stderr.write(`worker-profile: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
