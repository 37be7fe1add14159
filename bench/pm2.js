// The peer, side by side, in one run of this script: the same leaking app
// (test/fixtures/apps/leaky-http.js, LEAK_MB_PER_SEC per worker from a timer) and the same
// keep-alive load under PM2 in cluster mode with max_memory_restart, and under nodesup with the
// same per-worker limit and worker count. PM2 is NOT a dependency of nodesup: the bench pins it in
// its own lockfile (bench/pm2/package-lock.json) and installs it with `npm ci` into a scratch
// folder, runs it with its own PM2_HOME, and ends its daemon with `pm2 kill`. The fair leg runs
// the app with PM2's documented graceful shutdown: on SIGINT it closes its server, then exits. Both supervisors are measured the same way, from /proc every 100 ms:
// the workers are the supervisor process's children (nodesup's primary, PM2's God daemon).
//   node bench/pm2.js [--quick] [--write] [--duration 60] [--limit-mb 150] [--leak-mb-per-sec 20]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { benchArgs, ROOT } from './lib/args.js';
import { startNodesup, freePort, load, cleanupAll, scratch, atExit, delay, own, disown } from './lib/spawn.js';
import { TreeSampler } from './lib/sampler.js';
import { cpuMeter, alive } from './lib/proc.js';
import { percentile, fx, mib, int } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { requestNote } from './lib/requests.js';

const opts = benchArgs({
  duration: { type: 'string' }, connections: { type: 'string', default: '10' }, workers: { type: 'string', default: '2' },
  'limit-mb': { type: 'string', default: '150' }, 'leak-mb-per-sec': { type: 'string', default: '20' },
  'pm2-prefix': { type: 'string' }, legs: { type: 'string', default: 'pm2,pm2-graceful,pm2-1s,nodesup' },
}, 'node bench/pm2.js [--quick] [--write] [--duration S] [--connections C] [--workers N] [--limit-mb MB] [--leak-mb-per-sec N] [--pm2-prefix DIR] [--legs pm2,pm2-graceful,pm2-1s,nodesup]');
const DURATION = Number(opts.duration ?? (opts.quick ? 15 : 60));
const CONNECTIONS = Number(opts.connections);
const WORKERS = Number(opts.workers);
const LIMIT_MB = Number(opts['limit-mb']);
const APP = path.join(ROOT, 'test/fixtures/apps/leaky-http.js');

const sh = (file, args, o = {}) => new Promise((resolve) => {
  const child = execFile(file, args, { maxBuffer: 64 * 1024 * 1024, timeout: 120_000, ...o }, (err, stdout, stderr) => { disown(child.pid); resolve({ err, stdout, stderr }); });
  own(child.pid);
});

/** One GET on a fresh connection that is closed after it: an idle keep-alive socket of ours would hold up a worker's exit. */
function answers(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false, headers: { connection: 'close' }, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

const PINNED = path.join(ROOT, 'bench/pm2');

/** Install the pinned PM2 into a scratch prefix (or reuse --pm2-prefix); returns {bin, version} or {error}. */
async function installPm2() {
  const prefix = opts['pm2-prefix'] ? path.resolve(opts['pm2-prefix']) : scratch('nodesup-bench-pm2-');
  const pkg = path.join(prefix, 'node_modules/pm2/package.json');
  if (!fs.existsSync(pkg)) {
    process.stderr.write(`installing the pinned pm2 (bench/pm2/package-lock.json) into ${prefix} …\n`);
    for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(PINNED, f), path.join(prefix, f));
    const r = await sh('npm', ['ci', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error'], { timeout: 300_000 });
    if (r.err || !fs.existsSync(pkg)) {
      const lines = (r.stderr || r.err?.message || '').split('\n').map((l) => l.replace(/^npm (error|ERR!) ?/, '').trim())
        .filter((l) => l && !/proxy|complete log|npm help/i.test(l));
      return { error: `npm ci --prefix <scratch> (bench/pm2) failed: ${lines.slice(0, 2).join('; ') || `exit ${r.err?.code}`}` };
    }
  }
  return { bin: path.join(prefix, 'node_modules/pm2/bin/pm2'), version: JSON.parse(fs.readFileSync(pkg, 'utf8')).version, prefix };
}

/**
 * One PM2 leg: its own PM2_HOME, cluster mode, max_memory_restart; `interval` ms overrides PM2's
 * check (PM2_WORKER_INTERVAL); `graceful` gives the app PM2's documented SIGINT handler.
 */
async function pm2Leg(pm2, { interval = null, graceful = false } = {}) {
  const home = scratch('nodesup-bench-pm2home-');
  fs.writeFileSync(path.join(home, 'touch'), String(Date.now())); // PM2 pings its server once per fresh PM2_HOME unless this exists
  const port = await freePort();
  const eco = path.join(home, 'ecosystem.config.cjs');
  fs.writeFileSync(eco, `module.exports = ${JSON.stringify({
    apps: [{
      name: 'leaky', script: APP, exec_mode: 'cluster', instances: WORKERS, max_memory_restart: `${LIMIT_MB}M`,
      env: { PORT: String(port), LEAK_MB_PER_SEC: opts['leak-mb-per-sec'], ...(graceful ? { GRACEFUL_SIGINT: '1' } : {}) }, autorestart: true,
    }],
  }, null, 2)};\n`);
  const env = { ...process.env, PM2_HOME: home, PM2_DISABLE_VERSION_CHECK: '1', ...(interval ? { PM2_WORKER_INTERVAL: String(interval) } : {}) };
  const pm2cli = (args) => sh(process.execPath, [pm2.bin, ...args], { env, cwd: home });
  let god = null;
  const kill = async () => {
    await pm2cli(['kill']);
    if (god && !alive(god)) disown(god); // else SIGKILLed at exit: `pm2 kill` failed
  };
  const unhook = atExit(kill);
  try {
    const started = await pm2cli(['start', eco]);
    if (started.err) throw new Error(`pm2 start failed: ${started.stderr || started.err.message}`);
    god = Number(fs.readFileSync(path.join(home, 'pm2.pid'), 'utf8').trim());
    own(god);
    // Ready: PM2 says every instance is online and the port answers.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const j = await pm2cli(['jlist']);
      const list = JSON.parse(j.stdout.slice(j.stdout.indexOf('[')) || '[]');
      if (list.filter((p) => p.pm2_env?.status === 'online').length >= WORKERS && (await answers(port))) break;
      if (Date.now() > deadline) throw new Error(`pm2: workers not online within 60 s: ${j.stdout.slice(-500)}`);
      await delay(250);
    }
    const m = await measure({ supervisorPid: god, port });
    const j = await pm2cli(['jlist']);
    const list = JSON.parse(j.stdout.slice(j.stdout.indexOf('[')) || '[]');
    m.supervisorRestarts = list.reduce((a, p) => a + (p.pm2_env?.restart_time ?? 0), 0);
    const check = interval ? `${interval / 1000} s (PM2_WORKER_INTERVAL)` : '30 s (default)';
    return { ...m, name: `PM2 ${pm2.version}${graceful ? ' + graceful SIGINT handler' : ''}`, check };
  } finally {
    await kill();
    unhook();
  }
}

async function nodesupLeg() {
  const port = await freePort();
  const run = startNodesup([APP, '-w', String(WORKERS), '--max-rss', `${LIMIT_MB}mb`, '--poll-interval', '1s', '--metrics', `127.0.0.1:${await freePort()}`, '--log-format', 'json'],
    { env: { PORT: String(port), LEAK_MB_PER_SEC: opts['leak-mb-per-sec'] } });
  try {
    const start = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
    await run.waitReady(WORKERS);
    const since = Date.now();
    const m = await measure({ supervisorPid: start.primaryPid, port });
    m.supervisorRestarts = run.events.filter((e) => e.event === 'worker.recycle' && e.at >= since).length;
    return { ...m, name: 'nodesup', check: 'poll 1 s (default)' };
  } finally {
    await run.stop();
  }
}

/** Load for DURATION seconds while sampling every worker's tree RSS and the supervisor's CPU. */
async function measure({ supervisorPid, port }) {
  const limit = LIMIT_MB * 1024 * 1024;
  // Workers are remembered as they appear, so they die with the bench whatever happens to their supervisor.
  const sampler = new TreeSampler({ parentPid: supervisorPid, limit, intervalMs: 100, onSeen: own, onGone: disown }).start();
  const cpu = cpuMeter(supervisorPid);
  cpu.start();
  const initial = sampler.list().length;
  const r = await load({ url: `http://127.0.0.1:${port}/`, connections: CONNECTIONS, duration: DURATION }).result;
  const c = cpu.stop();
  sampler.stop();
  const workers = sampler.list();
  const crossed = workers.filter((w) => w.crossedAt !== null);
  const replaced = crossed.filter((w) => w.goneAt !== null);
  return {
    load: r, initial, seen: workers.length, replacements: workers.length - initial,
    crossed: crossed.length, stillOver: crossed.length - replaced.length,
    toGone: replaced.map((w) => w.goneAt - w.crossedAt), peaks: crossed.map((w) => w.peak),
    cpu: c?.percent ?? null, supervisorRss: sampler.parentPeakRss, lateTicks: sampler.lateTicks, ticks: sampler.ticks,
  };
}

async function main() {
  const legs = [];
  const wanted = opts.legs.split(',').map((s) => s.trim());
  const pm2 = wanted.some((w) => w.startsWith('pm2')) ? await installPm2() : null;
  for (const leg of wanted) {
    if (leg === 'nodesup') legs.push(await nodesupLeg());
    else if (!['pm2', 'pm2-graceful', 'pm2-1s'].includes(leg)) throw new Error(`--legs: unknown leg ${leg} (pm2, pm2-graceful, pm2-1s, nodesup)`);
    else if (pm2.error) legs.push({ name: 'PM2', error: pm2.error });
    else {
      // A PM2 that will not start is reported in the table, not allowed to hide nodesup's row.
      legs.push(await pm2Leg(pm2, { interval: leg === 'pm2-1s' ? 1000 : null, graceful: leg === 'pm2-graceful' }).catch((err) => ({ name: `PM2 ${pm2.version}`, error: err.message.split('\n')[0] })));
    }
  }
  for (const l of legs) if (!l.error) process.stderr.write(`${l.name} (${l.check}): failed ${l.load.failed}, replacements ${l.replacements}, peaks ${l.peaks.map((p) => mib(p, 0)).join(' ')} MiB\n`);

  const limit = LIMIT_MB * 1024 * 1024;
  const rows = legs.map((l) => (l.error ? [l.name, `**not measured: ${l.error}**`, ...Array(9).fill('-')] : [
    l.name, l.check, int(l.load.sent), `**${int(l.load.failed)}**`, `${int(l.load.errors)} / ${int(l.load.lostSilently)} / ${int(l.load.non2xx)}`,
    `${l.replacements} (${l.supervisorRestarts})`,
    l.toGone.length ? `${fx(percentile(l.toGone, 0.5) / 1000, 1)} / ${fx(percentile(l.toGone, 1) / 1000, 1)}` : '-',
    l.stillOver, l.peaks.length ? `${mib(percentile(l.peaks, 0.5), 0)} / ${mib(percentile(l.peaks, 1), 0)}` : '-',
    l.peaks.length ? mib(percentile(l.peaks, 1) - limit, 0) : '-',
    `${fx(l.cpu, 1)} % / ${mib(l.supervisorRss, 0)}`,
  ]));
  const measured = legs.filter((l) => !l.error);
  const body = [
    `\`test/fixtures/apps/leaky-http.js\` with LEAK_MB_PER_SEC=${opts['leak-mb-per-sec']} (each worker keeps ${opts['leak-mb-per-sec']} MiB/s from a timer), ${WORKERS} workers, limit ${LIMIT_MB} MiB per worker (PM2 \`max_memory_restart: '${LIMIT_MB}M'\` in cluster mode; nodesup \`--max-rss ${LIMIT_MB}mb\`, defaults otherwise: gcBeforeRecycle on, metrics on). Each leg: autocannon ${CONNECTIONS} keep-alive connections × ${DURATION} s on 127.0.0.1 from a separate process, started once every worker is ready. ` +
      'Every worker\'s tree RSS is sampled by the bench from /proc every 100 ms (the workers are the children of nodesup\'s primary or of PM2\'s God daemon, whose pid is in `$PM2_HOME/pm2.pid`); a worker is gone when its pid is.',
    '',
    table(['supervisor', 'memory check', 'requests sent', 'failed', 'errors / lost silently / non-2xx', 'workers started after the first (supervisor\'s own restart count)', 'crossing → old worker gone, s (p50 / max)', 'over the limit at the end, not yet replaced', 'peak RSS per worker over the limit, MiB (p50 / max)', 'worst overshoot, MiB above the limit', 'supervisor CPU (% of a core) / peak RSS MiB'], rows),
    '',
    'Supervisor\'s own count: restarts summed from `pm2 jlist` (`restart_time`), or nodesup\'s `worker.recycle` events. Crossing: the first 100 ms sample above the limit. The PM2 row with a 1 s check sets `PM2_WORKER_INTERVAL=1000` for its daemon, to show what is left when the check interval is taken out of the comparison.',
    '',
    ...measured.map((l) => `${l.name} (${l.check}): unaccounted requests ${l.load.unaccounted}, written after \`Connection: close\` ${l.load.afterClose}, in flight at end ${l.load.inFlightAtEnd}${Object.keys(l.load.errorCodes).length ? `, errors by code ${JSON.stringify(l.load.errorCodes)}` : ''}; sampler ticks > 200 ms apart ${l.lateTicks} of ${l.ticks}.`),
    '',
    measured.length ? requestNote(measured[0].load).split(' Every request')[0] : '',
  ].join('\n');
  publish(opts, 'pm2', 'The peer, side by side: PM2 and nodesup', body);
}

main().catch((err) => { process.stderr.write(`pm2: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
