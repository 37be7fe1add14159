// Steering a running supervisor through the real CLI: status --json, recycle, reload, stop, SIGHUP,
// names and the permissions of the control socket.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, runCli, app, freePort, scratch, waitGone, alive } from '../helpers/cli.js';

const HTTP = app('http.js');

/** Start `nodesup start http.js` with n workers and wait until every slot has a ready worker. */
async function startReady(t, n, { args = [], env = {} } = {}) {
  const run = startCli(t, [HTTP, '-w', String(n), '--metrics', 'false', '--poll-interval', '250ms', ...args], { env: { PORT: String(await freePort()), ...env } });
  const ready = await Promise.all(Array.from({ length: n }, (_, slot) => run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` })));
  return { run, ready };
}

const cli = (run, args, env = {}) => runCli(args, { env: { NODESUP_RUN_DIR: run.runDir, ...env } });
const json = (r) => JSON.parse(r.stdout);

test('status --json: one snapshot with name, pid, a row per slot, limits, counters and poll timings', async (t) => {
  const { run, ready } = await startReady(t, 2, { args: ['--name', 'shape', '--max-rss', '400mb'] });
  // A row has numbers once the slot has been polled: wait for that state, no event announces it.
  await run.waitForStatus((s) => s.slots.every((r) => r.last?.treeRss > 0), { what: 'every slot sampled' });
  const r = await cli(run, ['status', '--json']);
  t.is(r.exitCode, 0, r.stderr);
  const snap = json(r);
  t.is(snap.name, 'shape');
  t.is(snap.pid, run.child.pid, 'the primary is the process we started');
  t.deepEqual(snap.slots.map((s) => s.slot), [0, 1]);
  for (const s of snap.slots) {
    t.is(s.pid, ready[s.slot].pid);
    t.is(s.state, 'ready');
    t.true(Number.isInteger(s.last.treeRss) && s.last.treeRss > 1024 * 1024, `slot ${s.slot} treeRss ${s.last.treeRss}`);
  }
  t.is(snap.limits.rss, 400 * 1024 * 1024);
  t.deepEqual(snap.counters, { recycles: {}, restarts: 0 });
  t.true(snap.poll.count >= 1);
  t.is(typeof snap.poll.p99Ms, 'number');
  t.is(snap.poll.group, 16, 'two workers: one tick polls both, at the group size a primary starts with');

  const named = await cli(run, ['status', 'shape', '--json']);
  t.is(named.exitCode, 0, named.stderr);
  t.is(json(named).pid, snap.pid, 'the name finds the same supervisor');
});

test('recycle 1: a manual recycle of slot 1 only, which gets a new pid', async (t) => {
  const { run, ready } = await startReady(t, 2);
  const r = await cli(run, ['recycle', '1', '--json']);
  t.is(r.exitCode, 0, r.stderr);
  t.like(json(r), { slot: 1, reason: 'manual', result: 'recycled', oldPid: ready[1].pid });
  const recycle = run.events.find((e) => e.event === 'worker.recycle');
  t.like(recycle, { slot: 1, pid: ready[1].pid, reason: 'manual' });
  const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === ready[1].pid, { what: 'the old slot 1 worker gone' });
  t.true(exit.planned);
  const snap = await run.status();
  t.not(snap.slots.find((s) => s.slot === 1).pid, ready[1].pid, 'slot 1 has a new worker');
  t.is(snap.slots.find((s) => s.slot === 0).pid, ready[0].pid, 'slot 0 was left alone');
  t.is(run.count((e) => e.event === 'worker.recycle'), 1);
  t.false(alive(ready[1].pid));
});

test('reload: every slot replaced, reason reload, one slot at a time', async (t) => {
  const { run, ready } = await startReady(t, 3);
  const r = await cli(run, ['reload', '--json']);
  t.is(r.exitCode, 0, r.stderr);
  t.like(json(r), { result: 'ok', reloaded: 3, workers: 3 });
  const old = new Set(ready.map((e) => e.pid));
  await Promise.all(ready.map((e) => run.waitFor((ev) => ev.event === 'worker.exit' && ev.pid === e.pid, { what: `pid ${e.pid} gone` })));

  const recycles = run.events.filter((e) => e.event === 'worker.recycle');
  t.deepEqual(recycles.map((e) => e.slot).sort(), [0, 1, 2], 'each slot once');
  t.true(recycles.every((e) => e.reason === 'reload' && old.has(e.pid)));
  // maxConcurrent 1: the old worker of one slot is gone before the next slot's recycle begins.
  const at = (pred) => run.events.findIndex(pred);
  for (let i = 0; i + 1 < recycles.length; i++) {
    const exitAt = at((e) => e.event === 'worker.exit' && e.pid === recycles[i].pid);
    const nextAt = run.events.indexOf(recycles[i + 1]);
    t.true(exitAt >= 0 && exitAt < nextAt, `slot ${recycles[i].slot} gone (event #${exitAt}) before slot ${recycles[i + 1].slot} starts (event #${nextAt})`);
  }
  const exits = run.events.filter((e) => e.event === 'worker.exit' && old.has(e.pid));
  t.true(exits.every((e) => e.planned && e.reason === 'reload'));
  const snap = await run.status();
  for (const s of snap.slots) t.false(old.has(s.pid), `slot ${s.slot} runs a new worker`);
  t.deepEqual(snap.counters.recycles, { reload: 3 });
});

test('SIGHUP to the primary: a rolling reload', async (t) => {
  const { run, ready } = await startReady(t, 2);
  process.kill(run.child.pid, 'SIGHUP');
  for (const e of ready) {
    const rec = await run.waitFor((ev) => ev.event === 'worker.recycle' && ev.pid === e.pid, { what: `slot ${e.slot} reloaded` });
    t.is(rec.reason, 'reload');
  }
  await run.waitForStatus((s) => s.slots.every((r) => r.state === 'ready' && !ready.some((e) => e.pid === r.pid)), { what: 'new workers everywhere' });
  t.is(run.child.exitCode, null, 'the primary lives on');
});

test('stop: exit 0, the supervisor drains and exits 0, its workers are gone', async (t) => {
  const { run, ready } = await startReady(t, 2);
  const r = await cli(run, ['stop', '--json']);
  t.is(r.exitCode, 0, r.stderr);
  // The answer comes once the stop is complete, with every worker it ended.
  t.true(json(r).stopped);
  t.deepEqual(json(r).workers.map((w) => w.pid).sort(), ready.map((e) => e.pid).sort());
  const done = await run.exited;
  t.is(done.exitCode, 0);
  t.deepEqual(await waitGone(ready.map((e) => e.pid)), []);
  t.true(run.events.some((e) => e.event === 'supervisor.stop' && e.signal === 'control'));
  t.deepEqual(fs.readdirSync(run.runDir).filter((f) => f.endsWith('.sock')), [], 'the socket is removed');
});

test('the run dir is tightened to 0700 and the socket is 0600', async (t) => {
  const parent = scratch();
  t.teardown(() => fs.rmSync(parent, { recursive: true, force: true }));
  const dir = path.join(parent, 'run');
  fs.mkdirSync(dir, { mode: 0o755 });
  fs.chmodSync(dir, 0o755); // whatever the umask: group and others can read it to begin with
  const { run } = await startReady(t, 1, { args: ['--name', 'perm'], env: { NODESUP_RUN_DIR: dir } });
  t.is(fs.statSync(dir).mode & 0o777, 0o700);
  const sock = fs.statSync(path.join(dir, 'perm.sock'));
  t.true(sock.isSocket());
  t.is(sock.mode & 0o777, 0o600);
  const r = await runCli(['status', '--json'], { env: { NODESUP_RUN_DIR: dir } });
  t.is(r.exitCode, 0, r.stderr);
  t.is(json(r).pid, run.child.pid);
});

test('a second supervisor with the same --name exits 2 with one line and starts nothing', async (t) => {
  const { run } = await startReady(t, 1, { args: ['--name', 'twin'] });
  const r = await runCli(['start', HTTP, '-w', '1', '--name', 'twin', '--metrics', 'false'], { env: { NODESUP_RUN_DIR: run.runDir, PORT: String(await freePort()) } });
  t.is(r.exitCode, 2);
  const lines = r.stderr.trim().split('\n');
  t.is(lines.length, 1, r.stderr);
  t.regex(lines[0], /^nodesup: .*"twin" is already running/);
  t.false(r.stdout.includes('worker.spawn'), 'no worker was forked');
  t.false(r.stdout.includes('supervisor.start'));
  const snap = await run.status();
  t.is(snap.pid, run.child.pid, 'the first one still owns the name');
});

test('two supervisors, no name given: status --json exits 2 naming both', async (t) => {
  const { run: a } = await startReady(t, 1, { args: ['--name', 'alpha'] });
  const { run: b } = await startReady(t, 1, { args: ['--name', 'beta'], env: { NODESUP_RUN_DIR: a.runDir } });
  const r = await cli(a, ['status', '--json']);
  t.is(r.exitCode, 2);
  t.is(r.stdout, '');
  t.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  t.regex(r.stderr, /alpha/);
  t.regex(r.stderr, /beta/);
  const named = await cli(a, ['status', 'beta', '--json']);
  t.is(named.exitCode, 0, named.stderr);
  t.is(json(named).pid, b.child.pid);
});
