// Releases side by side under a `current` symlink, deployed with the real CLI, started both ways
// teams start them: `nodesup start current/server.js` from the app's root, and
// `cd current && nodesup start server.js`. A release that throws at start fails the reload (exit 1,
// the reason in the command's own output) while a keep-alive client is served throughout; the
// next good release is served after a reload that exits 0; and in between, a crash restart and a
// memory recycle start the release that serves, not the one `current` names.
import test from 'ava';
import path from 'node:path';
import { Pool } from 'undici';
import { startCli, runCli, freePort, get, waitGone, writeConfig } from '../helpers/cli.js';
import { releases } from '../fixtures/releases/releases.js';

/** A keep-alive client (undici's Pool) asking for `/` in a loop on each of its connections until stopped. */
function keepAliveLoad(port, connections = 4) {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections, keepAliveTimeout: 10_000 });
  const stats = { ok: 0, failed: 0, errors: [], releases: new Set() };
  let running = true;
  const loop = async () => {
    while (running) {
      try {
        const res = await pool.request({ path: '/', method: 'GET' });
        const body = await res.body.text();
        if (res.statusCode === 200) {
          stats.ok++;
          stats.releases.add(/^release (\S+)/.exec(body)?.[1]);
        } else {
          stats.failed++;
          stats.errors.push(`HTTP ${res.statusCode}`);
        }
      } catch (err) {
        stats.failed++;
        stats.errors.push(err.code ?? err.message);
      }
    }
  };
  const loops = Array.from({ length: connections }, loop);
  return {
    stats,
    /** Resolves once `n` more requests were answered: the load really flows. */
    async flowing(n = 200) {
      const target = stats.ok + n;
      while (stats.ok < target && running) await new Promise((r) => setImmediate(r));
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      await pool.close();
      return stats;
    },
  };
}

/** Which release answers: a fresh connection each time, so each worker is asked in turn. */
async function releasesServing(port, n = 8) {
  const seen = [];
  for (let i = 0; i < n; i++) seen.push(/^release (\S+) pid (\d+) cwd (.*)$/m.exec((await get(`http://127.0.0.1:${port}/`)).body).slice(1));
  return seen;
}

// A worker over its limit within 3 polls of its start is held (limit.below-baseline), not recycled:
// grow one only once every worker is past that.
const pastStartUp = (run, pollMs = 250) => run.waitForStatus((s) => s.slots.every((r) => r.state === 'ready' && r.readyAt !== null && s.now - r.readyAt > 4 * pollMs),
  { what: 'every worker past its start-up' });

const cli = (run, args) => runCli(args, { env: { NODESUP_RUN_DIR: run.runDir } });
const ready = (run, n = 2) => Promise.all(Array.from({ length: n }, (_, slot) => run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` })));

// The failed reload, under keep-alive load: exit 1, the new worker's exit and error in the output.
async function failedReload(t, run, rel, port) {
  rel.point('v2');
  const load = keepAliveLoad(port);
  await load.flowing();
  const r = await cli(run, ['reload']);
  await load.flowing();
  const stats = await load.stop();
  t.log(`$ nodesup reload   (current → releases/v2, which throws at start)\n${r.stdout}\n$ echo $?\n${r.exitCode}`);
  t.is(r.exitCode, 1, `a reload in which a slot kept its old code exits 1: ${r.stderr}`);
  t.regex(r.stdout, /^reloading 2 workers, one at a time$/m);
  t.regex(r.stdout, /^ {2}slot 0 {2}pid \d+ → \d+ {2}failed: the new worker exited with code 1 before it was ready$/m);
  t.regex(r.stdout, /^ {10}Error: DATABASE_URL is not set$/m);
  t.true(r.stdout.includes(`at Object.<anonymous> (${path.join(rel.dir('v2'), 'server.js')}:`), 'the frame that threw, in the release that failed');
  t.regex(r.stdout, /^stopped at slot 0: 0 of 2 workers run the new code, 2 still run the old one \(all serving\)$/m);
  t.is(stats.failed, 0, `every request of the keep-alive client succeeded: ${stats.errors.slice(0, 5).join(', ')}`);
  t.true(stats.ok > 400, `the load ran (${stats.ok} requests)`);
  t.deepEqual([...stats.releases], ['v1'], 'only the old release served');
  const ev = await run.waitFor((e) => e.event === 'reload' && e.result === 'failed', { what: 'the failed reload\'s event' });
  t.like(ev, { by: 'control', workers: 2, reloaded: 0, stoppedAt: 0, stoppedBy: 'failure', notStarted: [1], pinned: { script: path.join(rel.dir('v1'), 'server.js') } });
  t.like(ev.results[0].failure, { why: 'exited', code: 1 });
  t.true(ev.results[0].failure.stderr.includes('Error: DATABASE_URL is not set'));
  return ev;
}

// The next good release: exit 0, every slot replaced, and it serves, its workers in `cwd`.
async function goodReload(t, run, rel, port, old, cwd) {
  rel.point('v3');
  const load = keepAliveLoad(port);
  await load.flowing();
  const r = await cli(run, ['reload']);
  t.log(`$ nodesup reload   (current → releases/v3)\n${r.stdout}\n$ echo $?\n${r.exitCode}`);
  t.is(r.exitCode, 0, r.stderr);
  t.regex(r.stdout, /^ {2}slot 0 {2}pid \d+ → \d+ {2}ready in \d+\.\d s, old worker drained in \d+\.\d s$/m);
  t.regex(r.stdout, /^ {2}slot 1 {2}pid \d+ → \d+ {2}ready in \d+\.\d s, old worker drained in \d+\.\d s$/m);
  t.regex(r.stdout, /^done: 2 of 2 workers run the new code/m);
  t.deepEqual(await waitGone(old), [], 'the old workers are gone');
  await load.flowing();
  const stats = await load.stop();
  t.is(stats.failed, 0, `every request of the keep-alive client succeeded: ${stats.errors.slice(0, 5).join(', ')}`);
  const serving = await releasesServing(port);
  t.deepEqual([...new Set(serving.map(([name]) => name))], ['v3'], 'the new release serves');
  t.deepEqual([...new Set(serving.map(([, , dir]) => dir))], [cwd], 'its workers run where they should');
  t.like(await run.waitFor((e) => e.event === 'reload' && e.result === 'ok', { what: 'the good reload\'s event' }), { reloaded: 2, pinned: null });
}

test('nodesup start current/server.js: a failed reload exits 1 with its reason, restarts and recycles keep the serving release, the next good one is served', async (t) => {
  const rel = releases(t);
  const port = await freePort();
  const metricsPort = await freePort();
  // A slot whose replacement failed is not recycled again for a readyTimeout: 5 s, not 30, keeps this short.
  const config = writeConfig(t, { recycle: { readyTimeout: '5s' } });
  const run = startCli(t, ['current/server.js', '-c', config, '-w', '2', '--max-rss', '150mb', '--poll-interval', '250ms', '--metrics', `127.0.0.1:${metricsPort}`],
    { cwd: rel.root, env: { PORT: String(port), GROW_MB: '150' } });
  const first = await ready(run);
  t.true(first.every((e) => run.events.find((s) => s.event === 'worker.spawn' && s.pid === e.pid).script === path.join(rel.dir('v1'), 'server.js')));

  await failedReload(t, run, rel, port);

  // A crash restart: `current` names v2, the release that failed; the restart runs v1, and says so.
  const crashed = first[0].pid;
  await get(`http://127.0.0.1:${port}/crash`).catch(() => {});
  const restart = await run.waitFor((e) => e.event === 'worker.spawn' && e.cause === 'restart', { what: 'the crash restart' });
  t.like(restart, { script: path.join(rel.dir('v1'), 'server.js'), pinned: true });
  await run.waitFor((e) => e.event === 'worker.ready' && e.pid === restart.pid, { what: 'the restarted worker ready' });

  // A memory recycle: its replacement runs v1 too.
  await pastStartUp(run);
  await get(`http://127.0.0.1:${port}/grow`);
  const recycle = await run.waitFor((e) => e.event === 'worker.recycle' && e.reason === 'rss', { what: 'a memory recycle' });
  const replacement = await run.waitFor((e) => e.event === 'worker.spawn' && e.cause === 'replace' && e.slot === recycle.slot && run.events.indexOf(e) > run.events.indexOf(recycle), { what: 'its replacement' });
  t.like(replacement, { script: path.join(rel.dir('v1'), 'server.js'), pinned: true });
  await run.waitFor((e) => e.event === 'worker.ready' && e.pid === replacement.pid, { what: 'the replacement ready' });
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === recycle.pid, { what: 'the grown worker gone' });
  t.deepEqual([...new Set((await releasesServing(port)).map(([name]) => name))], ['v1'], 'still the release that served');

  const now = (await run.status()).slots.map((s) => s.pid);
  t.false(now.includes(crashed));
  await goodReload(t, run, rel, port, now, rel.root);

  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  t.regex(metrics, /^nodesup_reloads_total\{result="failed"\} 1$/m);
  t.regex(metrics, /^nodesup_reloads_total\{result="ok"\} 1$/m);
  t.regex(metrics, /^nodesup_reloads_total\{result="partial"\} 0$/m);

  // After a reload that succeeded, starts follow `current` again: a recycle now starts v3 unpinned.
  const r = await cli(run, ['recycle', '0']);
  t.is(r.exitCode, 0, r.stderr);
  const after = run.events.findLast((e) => e.event === 'worker.spawn' && e.slot === 0);
  t.is(after.script, path.join(rel.dir('v3'), 'server.js'));
  t.is(after.pinned, undefined);
});

test('cd current && nodesup start server.js: the script and the workers\' cwd follow `current`, so a reload serves the new release', async (t) => {
  const rel = releases(t);
  const port = await freePort();
  // As a shell leaves it after `cd current`: the process stands in releases/v1, $PWD names current.
  const run = startCli(t, ['server.js', '-w', '2', '--poll-interval', '250ms', '--metrics', 'false'],
    { cwd: rel.current, env: { PORT: String(port), PWD: rel.current } });
  const first = await ready(run);
  t.is(run.events.find((e) => e.event === 'supervisor.start').script, path.join(rel.current, 'server.js'), 'the script named through the symlink');
  t.deepEqual([...new Set((await releasesServing(port)).map(([name, , cwd]) => `${name} ${cwd}`))], [`v1 ${rel.dir('v1')}`]);

  const failed = await failedReload(t, run, rel, port);
  t.is(failed.results[0].failure.stderr.some((l) => l.includes(rel.dir('v2'))), true, 'the new worker started the release `current` named');
  await goodReload(t, run, rel, port, first.map((e) => e.pid), rel.dir('v3'));
});
