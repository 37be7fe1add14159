// The README's first command, measured: `nodesup start examples/leaky-server/server.js` with the
// bundled supervisor.config.js, from the repository root, as a new user runs it. Each run: start,
// one GET a second (a user's curl), until the first worker.recycle; then a stop. Also the orphan
// guard (the one /bin/sh beside the primary): its RSS and PSS, and its CPU over the whole run,
// recycles included. The README quotes both ("recycled within a minute", the guard's size).
//   node bench/quickstart.js [--quick] [--write] [--runs 5]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startNodesup, freePort, cleanupAll, delay } from './lib/spawn.js';
import { childrenOf, cpuSeconds } from './lib/proc.js';
import { fx, mean, max, min } from './lib/stats.js';
import { publish, table } from './lib/results.js';

const opts = benchArgs({ runs: { type: 'string' } }, 'node bench/quickstart.js [--quick] [--write] [--runs N]');
const RUNS = Number(opts.runs ?? (opts.quick ? 1 : 5));
const APP = path.join(ROOT, 'examples/leaky-server/server.js');
const LIMIT_S = 120;

/** The primary's /bin/sh child (src/primary/lifecycle/orphan-guard.js), or null. */
function guardOf(primaryPid) {
  return childrenOf(primaryPid).find((p) => {
    try { return fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'sh'; } catch { return false; }
  }) ?? null;
}

/** Rss and Pss of pid in KiB from smaps_rollup, or null. */
function rollup(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1');
    return { rss: Number(/\nRss:\s+(\d+)/.exec(text)[1]), pss: Number(/\nPss:\s+(\d+)/.exec(text)[1]) };
  } catch {
    return null;
  }
}

function get(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

async function oneRun() {
  const port = await freePort();
  const t0 = Date.now();
  // As the README runs it, from the repository root (where the bundled config is found); only the
  // ports and the log format differ, so that runs do not collide and the bench can read events.
  const run = startNodesup([APP, '--log-format', 'json', '--metrics', `127.0.0.1:${await freePort()}`], { env: { PORT: String(port) }, cwd: ROOT });
  try {
    const start = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
    let sent = 0;
    let failed = 0;
    let recycle = null;
    const deadline = t0 + LIMIT_S * 1000;
    const recycled = run.waitFor((e) => e.event === 'worker.recycle', { what: 'worker.recycle', timeout: LIMIT_S * 1000 }).then((e) => { recycle = e; }, () => {});
    while (!recycle && Date.now() < deadline) {
      if (run.events.some((e) => e.event === 'worker.ready')) {
        sent++;
        if (!(await get(port))) failed++;
      }
      await Promise.race([delay(1000), recycled]);
    }
    // The guard starts with the first workers; read when the recycle came, its CPU is all it used.
    const guard = guardOf(start.primaryPid);
    const size = guard ? rollup(guard) : null;
    const guardCpu = guard ? cpuSeconds(guard) : null;
    return {
      toRecycle: recycle ? (recycle.at - t0) / 1000 : null, reason: recycle?.reason ?? null, kind: recycle?.kind ?? null,
      sent, failed, guard: size, guardCpu, wall: (Date.now() - t0) / 1000,
    };
  } finally {
    await run.stop(60_000);
  }
}

async function main() {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await oneRun();
    runs.push(r);
    process.stderr.write(`run ${i + 1}/${RUNS}: recycled after ${fx(r.toRecycle, 1)} s (${r.reason}${r.kind ? `, ${r.kind}` : ''}), ${r.failed}/${r.sent} GETs failed, guard ${r.guard?.rss ?? '-'} KiB RSS ${r.guard?.pss ?? '-'} KiB PSS, ${fx(r.guardCpu, 2)} s CPU\n`);
  }
  const times = runs.map((r) => r.toRecycle).filter((x) => x !== null);
  const body = [
    `\`nodesup start examples/leaky-server/server.js\` from the repository root with the bundled \`supervisor.config.js\` (2 workers, rss 128 MiB, leak window 30 s), ${RUNS} runs, each a fresh supervisor; only the app's port, the metrics port and \`--log-format json\` differ from the README's command. One GET a second on a fresh connection once a worker is ready, as a user with curl. Time: from starting the command to the first \`worker.recycle\` event. Orphan guard: its RSS and PSS from smaps_rollup when the recycle came, and its CPU (utime+stime) since it started, read at the same moment.`,
    '',
    table(['run', 'start → first recycle, s', 'reason', 'GETs failed / sent', 'guard RSS / PSS, KiB', 'guard CPU over the run, s'], runs.map((r, i) => [
      i + 1, fx(r.toRecycle, 1), r.reason ? `${r.reason}${r.kind ? ` (${r.kind})` : ''}` : `**none within ${LIMIT_S} s**`, `${r.failed} / ${r.sent}`,
      r.guard ? `${r.guard.rss} / ${r.guard.pss}` : '-', fx(r.guardCpu, 2),
    ])),
    '',
    `**Recycled after ${fx(min(times), 1)}–${fx(max(times), 1)} s (mean ${fx(mean(times), 1)}), ${times.length} of ${RUNS} runs within ${LIMIT_S} s**; ${times.filter((t) => t <= 60).length} of ${RUNS} within a minute.`,
  ].join('\n');
  publish(opts, 'quickstart', "The README's first command: recycled within a minute; the orphan guard's cost", body);
}

main().catch((err) => { process.stderr.write(`quickstart: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
