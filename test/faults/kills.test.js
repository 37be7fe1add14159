// Kills from outside: a worker SIGKILLed as the OOM killer would (counted, refilled), and the
// primary SIGKILLed at the worst moments: a worker's event loop blocked, a worker half-drained
// with a client holding it open. Whatever the primary can no longer do, nothing may outlive it.
import test from 'ava';
import { freePort, waitGone, get, guardsOf, workersOf } from '../helpers/cli.js';
import { faultApp, writeConfig, control, allPids, exited, rawConnection, start, signal } from './_helpers.js';

test('a worker SIGKILLed from outside, twice: each kill is an event, counted in status and metrics, the slot refilled', async (t) => {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const run = start(t, [faultApp('spin-on-request.js'), '-w', '2', '--metrics', `127.0.0.1:${metricsPort}`], { env: { PORT: String(port) } });
  let victim = (await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' })).pid;
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  for (let kill = 1; kill <= 2; kill++) {
    process.kill(victim, 'SIGKILL');
    const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === victim, { what: `kill ${kill} reported` });
    t.like(exit, { slot: 1, signal: 'SIGKILL', code: null, planned: false });
    const spawn = await run.waitFor((e) => e.event === 'worker.spawn' && e.cause === 'restart' && e.slot === 1 && e.pid !== victim
      && run.count((x) => x.event === 'worker.spawn' && x.cause === 'restart') === kill, { what: `slot 1 refilled after kill ${kill}` });
    await run.waitFor((e) => e.event === 'worker.ready' && e.pid === spawn.pid, { what: 'the refill ready' });
    victim = spawn.pid;
  }
  const snap = await run.status();
  t.is(snap.counters.restarts, 2);
  t.is(snap.slots.find((s) => s.slot === 1).restarts, 2);
  t.is(snap.slots.find((s) => s.slot === 0).restarts, 0);
  const metrics = (await get(`http://127.0.0.1:${metricsPort}/metrics`)).body;
  t.regex(metrics, /^nodesup_worker_crashes_total\{(?=[^}]*slot="1")(?=[^}]*signal="SIGKILL")[^}]*\} 2$/m, 'the kills are counted by slot and signal');
  t.regex(metrics, /^nodesup_restarts_total\{slot="1"\} 2$/m);
  t.regex((await get(`http://127.0.0.1:${port}/`)).body, /^ok \d+\n$/);
  signal(run, 'SIGTERM');
  t.is((await exited(run)).exitCode, 0);
  t.deepEqual(await waitGone(allPids(run)), []);
});

// A worker only notices the primary's death through its IPC channel closing, which a blocked event
// loop never processes: the orphan guard (src/primary/lifecycle/orphan-guard.js) SIGKILLs it after its grace.
test('SIGKILL of the primary while a worker is blocked: that worker and its child exit too, and so does the orphan guard', async (t) => {
  const port = await freePort();
  const run = start(t, [faultApp('spin-on-request.js'), '-w', '2', '--metrics', 'false'], { env: { PORT: String(port), SPIN_CHILD: '1' } });
  const pids = [
    (await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' })).pid,
    (await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' })).pid,
  ];
  const guards = guardsOf(run.child.pid);
  t.is(guards.length, 1, 'one orphan guard per supervisor');
  fetch(`http://127.0.0.1:${port}/spin`).catch(() => {});
  const spinning = await run.waitFor((e) => e.fixture === 'spinning', { what: 'a worker spinning' });
  run.child.kill('SIGKILL');
  t.deepEqual(await waitGone([run.child.pid]), []);
  const other = pids.find((pid) => pid !== spinning.pid);
  t.deepEqual(await waitGone([other], 10_000), [], 'the idle worker exits (its IPC channel closed)');
  t.deepEqual(await waitGone([spinning.pid], 8000), [], 'the blocked worker exits too, not left spinning as an orphan');
  t.deepEqual(await waitGone([spinning.child], 8000), [], "and so does the blocked worker's child, which ignores SIGTERM");
  t.deepEqual(await waitGone(guards), [], 'the orphan guard leaves once its work is done');
});

// The agent takes the IPC channel closing under a worker it is draining for the end of the drain
// (exitedAfterDisconnect) and exits: the primary's death frees even a worker a client holds open.
test('SIGKILL of the primary while a worker held open by a client drains: that worker exits too', async (t) => {
  const port = await freePort();
  const cfg = writeConfig(t, { recycle: { killTimeout: '60s' } });
  const run = start(t, [faultApp('stubborn-keepalive.js'), '-w', '1', '--metrics', 'false', '-c', cfg], { env: { PORT: String(port) } });
  const old = (await run.waitFor((e) => e.event === 'worker.ready', { what: 'the worker ready' })).pid;
  const client = await rawConnection(t, port);
  client.send('/hang');
  await run.waitFor((e) => e.fixture === 'hang received' && e.pid === old, { what: 'the held request' });
  const recycling = control(run, ['recycle', '0']);
  const next = (await run.waitFor((e) => e.event === 'worker.spawn' && e.cause === 'replace', { what: 'the replacement' })).pid;
  await run.waitFor((e) => e.event === 'worker.ready' && e.pid === next, { what: 'the replacement ready' });
  await run.waitForStatus((s) => workersOf(s).some((w) => w.pid === old && w.state === 'draining'), { what: 'the old worker draining', timeout: 20_000 });
  run.child.kill('SIGKILL');
  t.deepEqual(await waitGone([run.child.pid]), []);
  t.deepEqual(await waitGone([next], 10_000), [], 'the replacement exits (its IPC channel closed)');
  t.deepEqual(await waitGone([old], 10_000), [], 'the draining worker exits though its client still holds it');
  t.not((await recycling).exitCode, 0, 'the recycle command learns its supervisor is gone');
});
