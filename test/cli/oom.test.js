// A worker ended by the kernel's OOM killer is named as such. The kernel is played by the test on a
// fake cgroup root: it raises memory.events' oom_kill counter, then SIGKILLs the worker, which is
// the order the kernel's own accounting happens in.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCli, runCli, app, freePort, scratch } from '../helpers/cli.js';

const V2 = fileURLToPath(new URL('../fixtures/cgroup/v2', import.meta.url));

function fakeCgroup(t) {
  const dir = path.join(scratch(), 'cgroup');
  fs.cpSync(V2, dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'memory.events'), 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n');
  t.teardown(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));
  return { dir, oomKills: (n) => fs.writeFileSync(path.join(dir, 'memory.events'), `low 0\nhigh 0\nmax 3\noom ${n}\noom_kill ${n}\noom_group_kill 0\n`) };
}

test('a SIGKILL with a rise of the cgroup oom_kill counter: worker.exit oomKill true, advice on which limit to lower; a plain SIGKILL is not', async (t) => {
  const cg = fakeCgroup(t);
  const port = await freePort();
  const run = startCli(t, [app('http.js'), '-w', '2', '--metrics', 'false', '--poll-interval', '250ms'], { env: { PORT: String(port), NODESUP_CGROUP_ROOT: cg.dir } });
  const first = await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  const second = await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });

  cg.oomKills(1);
  process.kill(first.pid, 'SIGKILL');
  const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === first.pid, { what: 'the OOM-killed exit' });
  t.like(exit, { signal: 'SIGKILL', planned: false, oomKill: true });
  const advice = await run.waitFor((e) => e.event === 'worker.advice' && e.code === 'oom-kill', { what: 'oom-kill advice' });
  t.is(advice.slot, 0);
  t.regex(advice.msg, /OOM killer.*limits\.rss/);
  await run.waitFor((e) => e.event === 'worker.restart' && e.slot === 0, { what: 'the slot restarts' });

  // No rise this time: somebody else's SIGKILL.
  process.kill(second.pid, 'SIGKILL');
  const plain = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === second.pid, { what: 'the plain SIGKILL exit' });
  t.is(plain.signal, 'SIGKILL');
  t.is(plain.oomKill, undefined, 'not blamed on the kernel');

  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('over-commit: 2 workers × limits.rss 400 MiB in a 512 MiB container is warned at start, with the fix', async (t) => {
  const cg = fakeCgroup(t);
  const port = await freePort();
  const run = startCli(t, [app('http.js'), '-w', '2', '--max-rss', '400mb', '--metrics', 'false', '--poll-interval', '250ms'], { env: { PORT: String(port), NODESUP_CGROUP_ROOT: cg.dir } });
  const a = await run.waitFor((e) => e.event === 'worker.advice' && e.code === 'overcommit', { what: 'overcommit advice' });
  t.is(a.limit, 512 * 1024 * 1024);
  t.is(a.need, 800 * 1024 * 1024);
  t.regex(a.msg, /2 workers × limits\.rss 400 MiB > container limit 512 MiB: set limits\.rss ≤ 230/);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('over-commit: no limits.rss, workers × the V8 heap limit over the container: warned with a --max-old-space-size', async (t) => {
  const cg = fakeCgroup(t);
  const port = await freePort();
  // A 1 GiB heap limit per worker in a 512 MiB container.
  const run = startCli(t, [app('http.js'), '-w', '2', '--metrics', 'false', '--poll-interval', '250ms'], {
    env: { PORT: String(port), NODESUP_CGROUP_ROOT: cg.dir, NODE_OPTIONS: '--max-old-space-size=1024' },
  });
  const a = await run.waitFor((e) => e.event === 'worker.advice' && e.code === 'overcommit', { what: 'overcommit advice' });
  t.regex(a.msg, /V8 heap limit .* > container limit 512 MiB: nodeArgs \['--max-old-space-size=\d+'\]/);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('inspect --heap-snapshot refuses, exit 1 and one line, when the container has no room for it; nothing written', async (t) => {
  const cg = fakeCgroup(t);
  // 512 MiB limit, 511.9 MiB in use: no room for a snapshot of any heap.
  fs.writeFileSync(path.join(cg.dir, 'memory.current'), String(512 * 1024 * 1024 - 100 * 1024));
  const port = await freePort();
  const run = startCli(t, [app('http.js'), '-w', '1', '--metrics', 'false', '--poll-interval', '250ms', '--name', 'snap'], { env: { PORT: String(port), NODESUP_CGROUP_ROOT: cg.dir } });
  await run.waitFor((e) => e.event === 'worker.ready', { what: 'ready' });
  await run.waitForStatus((s) => s.slots[0]?.last?.heapUsed > 0, { what: 'a sample' });
  const file = path.join(scratch(), 'w.heapsnapshot');
  const r = await runCli(['inspect', '0', 'snap', '--heap-snapshot', file], { env: { NODESUP_RUN_DIR: run.runDir, NODESUP_CGROUP_ROOT: cg.dir } });
  t.is(r.exitCode, 1);
  t.regex(r.stderr, /^nodesup: heap snapshot refused: it needs ~.* of memory and only 100 KiB is left before the memory limit; `nodesup inspect 0` names/);
  t.is(r.stderr.trim().split('\n').length, 1);
  t.false(fs.existsSync(file));

  fs.writeFileSync(path.join(cg.dir, 'memory.current'), String(64 * 1024 * 1024));
  const ok = await runCli(['inspect', '0', 'snap', '--heap-snapshot', file, '--json'], { env: { NODESUP_RUN_DIR: run.runDir, NODESUP_CGROUP_ROOT: cg.dir } });
  t.is(ok.exitCode, 0, ok.stderr);
  const report = JSON.parse(ok.stdout);
  t.is(report.heapSnapshot.file, file);
  t.is(report.heapSnapshot.bytes, fs.statSync(file).size, 'the size is reported');
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});
