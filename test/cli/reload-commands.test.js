// The control commands tell the truth with the real CLI: `recycle` and `stop` print words and exit
// 0 only when what was asked happened; a reload by SIGHUP with maxConcurrent 2 stops at its first
// failure like a reload asked for; and the pretty log is one line per event.
import test from 'ava';
import { once } from 'node:events';
import path from 'node:path';
import { startCli, runCli, freePort, get, writeConfig, waitGone } from '../helpers/cli.js';
import { releases } from '../fixtures/releases/releases.js';

const cli = (run, args) => runCli(args, { env: { NODESUP_RUN_DIR: run.runDir } });
const ready = (run, n = 2) => Promise.all(Array.from({ length: n }, (_, slot) => run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` })));

// A worker over its limit within 3 polls of its start is held (limit.below-baseline), not recycled:
// grow one only once every worker is past that.
const pastStartUp = (run, pollMs = 250) => run.waitForStatus((s) => s.slots.every((r) => r.state === 'ready' && r.readyAt !== null && s.now - r.readyAt > 4 * pollMs),
  { what: 'every worker past its start-up' });

/** Resolves with the first stdout line matching `re`: for the pretty log, which is no JSON. */
function line(run, re, what) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const hit = run.lines.find((l) => re.test(l));
      if (!hit) return false;
      run.child.stdout.off('data', onData);
      clearTimeout(timer);
      resolve(hit);
      return true;
    };
    const onData = () => setImmediate(check); // after the helper has split the chunk into lines
    const timer = setTimeout(() => {
      run.child.stdout.off('data', onData);
      reject(new Error(`timed out waiting for ${what}; last lines:\n${run.lines.slice(-10).join('\n')}`));
    }, 60_000);
    if (!check()) run.child.stdout.on('data', onData);
  });
}

test('recycle and stop: words by default, --json the document, exit 0 only when it happened', async (t) => {
  const rel = releases(t);
  const port = await freePort();
  const run = startCli(t, ['current/server.js', '-w', '2', '--metrics', 'false'], { cwd: rel.root, env: { PORT: String(port) } });
  const first = await ready(run);

  rel.point('v2');
  const failed = await cli(run, ['recycle', '0']);
  t.log(`$ nodesup recycle 0   (current → a release that throws at start)\n${failed.stdout}\n$ echo $?\n${failed.exitCode}`);
  t.is(failed.exitCode, 1, failed.stderr);
  t.regex(failed.stdout, new RegExp(`^ {2}slot 0 {2}pid ${first[0].pid} → \\d+ {2}failed: the new worker exited with code 1 before it was ready$`, 'm'));
  t.regex(failed.stdout, /^ {10}Error: DATABASE_URL is not set$/m);
  t.regex(failed.stdout, new RegExp(`^recycle of slot 0 failed: its old worker \\(pid ${first[0].pid}\\) keeps serving$`, 'm'));
  const asJson = await cli(run, ['recycle', '1', '--json']);
  t.is(asJson.exitCode, 1);
  t.like(JSON.parse(asJson.stdout), { slot: 1, result: 'failed', oldPid: first[1].pid, failure: { why: 'exited', code: 1 } });

  rel.point('v1');
  const ok = await cli(run, ['recycle', '1']);
  t.is(ok.exitCode, 0, ok.stderr);
  t.regex(ok.stdout, new RegExp(`^ {2}slot 1 {2}pid ${first[1].pid} → \\d+ {2}ready in \\d+\\.\\d s, old worker drained in \\d+\\.\\d s\\nrecycled slot 1$`, 'm'));
  t.is(run.count((e) => e.event === 'reload'), 0, 'a recycle is not a reload');

  const usage = await cli(run, ['recycle', '7']);
  t.is(usage.exitCode, 2, 'a slot that is not there is a usage error');

  const serving = (await run.status()).slots.map((s) => s.pid);
  const stop = await cli(run, ['stop']);
  t.log(`$ nodesup stop\n${stop.stdout}\n$ echo $?\n${stop.exitCode}`);
  t.is(stop.exitCode, 0, stop.stderr);
  t.regex(stop.stdout, /^stopping 2 workers$/m);
  for (const pid of serving) t.regex(stop.stdout, new RegExp(`^ {2}slot \\d {2}pid ${pid} {2}drained in \\d+\\.\\d s$`, 'm'));
  t.regex(stop.stdout, /^stopped in \d+\.\d s$/m);
  // Answered once the stop was complete: every worker is gone by the time the command returns.
  t.deepEqual(serving.filter((pid) => { try { process.kill(pid, 0); return true; } catch { return false; } }), []);
  t.is((await run.exited).exitCode, 0);
  const again = await cli(run, ['stop']);
  t.is(again.exitCode, 1, 'nothing left to stop: no supervisor running');
});

test('a reload by SIGHUP with maxConcurrent 2 stops at its first failure: the slots started together finish, none starts after, the event says so', async (t) => {
  const rel = releases(t);
  const port = await freePort();
  const config = writeConfig(t, { script: path.join(rel.current, 'server.js'), workers: 3, pollInterval: '250ms', metrics: false, recycle: { maxConcurrent: 2 } });
  const run = startCli(t, ['-c', config], { cwd: rel.root, env: { PORT: String(port) } });
  const first = await ready(run, 3);

  rel.point('v2');
  process.kill(run.child.pid, 'SIGHUP');
  const ev = await run.waitFor((e) => e.event === 'reload', { what: 'the reload event' });
  t.like(ev, { by: 'SIGHUP', result: 'failed', workers: 3, maxConcurrent: 2, reloaded: 0, oldCode: 3, serving: 3, stoppedBy: 'failure', notStarted: [2] });
  t.deepEqual(ev.results.map((r) => r.slot).sort(), [0, 1], 'the two slots started together both finished');
  t.true(ev.results.every((r) => r.result === 'failed' && r.failure.why === 'exited' && r.failure.code === 1));
  t.is(ev.pinned.script, path.join(rel.dir('v1'), 'server.js'));
  t.false(run.events.some((e) => e.event === 'worker.recycle' && e.slot === 2), 'slot 2 was not touched');
  const snap = await run.status();
  t.deepEqual(snap.slots.map((s) => s.pid), first.map((e) => e.pid), 'every slot keeps its old worker');
  t.deepEqual([...new Set(await Promise.all([0, 1, 2].map(async () => /^release (\S+)/.exec((await get(`http://127.0.0.1:${port}/`)).body)[1])))], ['v1']);
  t.is(run.child.exitCode, null, 'the primary lives on');
});

test('a release that is never ready: the reload says it was not ready within readyTimeout, with what it wrote, and exits 1', async (t) => {
  const rel = releases(t);
  const port = await freePort();
  const config = writeConfig(t, { recycle: { readyTimeout: '2s' } });
  const run = startCli(t, ['current/server.js', '-c', config, '-w', '2', '--metrics', 'false'], { cwd: rel.root, env: { PORT: String(port) } });
  const first = await ready(run);
  rel.point('v4');
  const r = await cli(run, ['reload']);
  t.log(`$ nodesup reload   (current → a release that never listens)\n${r.stdout}\n$ echo $?\n${r.exitCode}`);
  t.is(r.exitCode, 1, r.stderr);
  t.regex(r.stdout, new RegExp(`^ {2}slot 0 {2}pid ${first[0].pid} → \\d+ {2}failed: the new worker was not ready within 2 s \\(recycle\\.readyTimeout\\)$`, 'm'));
  t.regex(r.stdout, /^ {10}waiting for the database at db\.internal:5432$/m);
  t.regex(r.stdout, /^stopped at slot 0: 0 of 2 workers run the new code, 2 still run the old one \(all serving\)$/m);
  t.deepEqual((await run.status()).slots.map((s) => s.pid), first.map((e) => e.pid), 'the old workers serve on');
});

test('the pretty log: one line per event, a memory recycle included; every field at debug', async (t) => {
  const rel = releases(t);
  const port = await freePort();
  const run = startCli(t, ['current/server.js', '-w', '2', '--metrics', 'false', '--log-format', 'pretty', '--max-rss', '150mb', '--poll-interval', '250ms'],
    { cwd: rel.root, env: { PORT: String(port), GROW_MB: '150' } });
  await line(run, /INFO .*slot 1: pid \d+ ready in \d+\.\d s$/, 'slot 1 ready');
  await line(run, /INFO .*slot 0: pid \d+ ready in \d+\.\d s$/, 'slot 0 ready');
  await pastStartUp(run);
  await get(`http://127.0.0.1:${port}/grow`);
  const recycled = await line(run, /WARN .*recycled: rss \d+ MiB > 150 MiB/, 'a memory recycle');
  await line(run, /exited \(0\) after draining/, 'the recycled worker gone');
  rel.point('v3');
  const r = await cli(run, ['reload']);
  t.is(r.exitCode, 0, r.stderr);
  await line(run, /reload done: 2 of 2 workers run the new code/, 'the reload event');
  run.child.kill('SIGTERM');
  await line(run, /nodesup stopped in \d+\.\d s$/, 'the stop');
  await run.exited;

  const PINO = /^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN|ERROR) \([\w./-]+\): \S/;
  const APP = /^\[\d+\] /; // the workers' own output, prefixed with their slot
  const ours = run.lines.filter((l) => !APP.test(l));
  t.log(`${ours.length} lines for ${ours.length} events:\n${ours.join('\n')}`);
  t.deepEqual(ours.filter((l) => !PINO.test(l)), [], 'every line of nodesup\'s own is one event');
  t.true(ours.includes(recycled), 'the recycle, with its memory breakdown in JSON, is one line here, its numbers in it');
  t.true(ours.length >= 12, `${ours.length} lines`);

  // At debug, every field follows its line.
  const port2 = await freePort();
  const debug = startCli(t, ['current/server.js', '-w', '1', '--metrics', 'false', '--log-format', 'pretty', '--log-level', 'debug'], { cwd: rel.root, env: { PORT: String(port2) } });
  await line(debug, /INFO .*slot 0: pid \d+ ready/, 'ready at debug');
  t.true(debug.lines.some((l) => l === '    event: "supervisor.start"'), debug.lines.slice(0, 5).join('\n'));
  debug.child.kill('SIGTERM');
  await once(debug.child, 'exit');
  await waitGone([...debug.pids]);
});
