// Whole process trees: memory held by children counts, and nothing outlives the supervisor.
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startCli, app, freePort, waitGone, alive, runCli, guardsOf } from '../helpers/cli.js';

const base = (port) => ({ env: { PORT: String(port) } });

test('memory held by a child process recycles the worker for rss, and the child goes with it', async (t) => {
  const run = startCli(t, [app('children-rss.js'), '-w', '1', '--max-rss', '200mb', '--poll-interval', '300ms', '--metrics', 'false'], base(await freePort()));
  const first = await run.waitFor((e) => e.fixture === 'children-rss', { what: 'the fixture child' });
  const recycle = await run.waitFor((e) => e.event === 'worker.recycle', { what: 'a recycle' });
  t.is(recycle.reason, 'rss');
  t.is(recycle.pid, first.worker);
  t.true(recycle.memory.children > 100 * 1024 * 1024, 'the breakdown shows the children holding the memory');
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === first.worker, { what: 'the old worker exit' });
  t.deepEqual(await waitGone([first.child]), [], 'the child of the recycled worker is gone');
  // A stop, not the teardown's SIGKILLs: a replacement's child whose pid the test has not read yet
  // would outlive a worker killed from outside; nodesup's stop takes every worker's tree down.
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

for (const how of ['SIGTERM', 'SIGINT', 'stop']) {
  test(`${how}: every worker and every worker's child exits, exit code 0`, async (t) => {
    // A long poll: the child is spawned after the first tick and no tick lists it before the stop.
    const run = startCli(t, [app('spawn-child.js'), '-w', '2', '--poll-interval', '60s', '--metrics', 'false', '--name', `tree-${how}`], base(await freePort()));
    const a = await run.waitFor((e) => e.fixture === 'spawn-child');
    const b = await run.waitFor((e) => e.fixture === 'spawn-child' && e.worker !== a.worker);
    const guards = guardsOf(run.child.pid);
    t.is(guards.length, 1, 'the orphan guard runs');
    const pids = [a.worker, a.child, b.worker, b.child, ...guards];
    t.true(pids.every(alive));
    if (how === 'stop') {
      const r = await runCli(['stop', `tree-${how}`], { env: { NODESUP_RUN_DIR: run.runDir } });
      t.is(r.exitCode, 0, r.stderr);
    } else run.child.kill(how);
    const done = await run.exited;
    t.is(done.exitCode, 0, done.stderr);
    t.deepEqual(await waitGone(pids), [], 'no worker, no child (even one ignoring SIGTERM), no orphan guard left');
    const stop = run.events.find((e) => e.event === 'supervisor.stop');
    t.truthy(stop);
  });
}

/** What outlived the test's wait, each pid named by what it is. */
async function survivors(fixtures) {
  const roles = new Map(fixtures.flatMap((f, i) => [[f.worker, `worker ${i}`], [f.child, `worker ${i}'s child`]]));
  return (await waitGone([...roles.keys()])).map((pid) => `${roles.get(pid)} (${pid})`);
}

test('SIGKILL of the primary: workers and their children still exit', async (t) => {
  const run = startCli(t, [app('spawn-child.js'), '-w', '2', '--metrics', 'false'], base(await freePort()));
  const a = await run.waitFor((e) => e.fixture === 'spawn-child');
  const b = await run.waitFor((e) => e.fixture === 'spawn-child' && e.worker !== a.worker);
  run.child.kill('SIGKILL');
  await run.exited;
  t.deepEqual(await survivors([a, b]), [], 'nothing orphaned');
});

// Unblocked after the primary is gone, the worker reads a poll and the channel's EOF together: its
// reply fails with EPIPE before it knows the primary is gone, and so does a write to its stdout
// (the primary's pipe), which kills it at once. Either way its child must go too.
for (const [what, say] of [['its reply to a poll fails', ''], ['its own write to stdout kills it', '&say=1']]) {
  test(`SIGKILL of the primary while a worker cannot read its channel, and then ${what}: the worker and its child still exit`, async (t) => {
    const port = await freePort();
    const run = startCli(t, [app('spawn-child.js'), '-w', '1', '--poll-interval', '100ms', '--metrics', 'false'], base(port));
    const a = await run.waitFor((e) => e.fixture === 'spawn-child');
    const release = path.join(run.runDir, 'release');
    const blocked = fetch(`http://127.0.0.1:${port}/block?until=${encodeURIComponent(release)}${say}`).catch((err) => err);
    await run.waitFor((e) => e.fixture === 'blocking', { what: 'the worker blocking its event loop' });
    // Two polls completed after the block began: the second was sent to the blocked worker.
    const polled = (await run.status()).poll.count;
    await run.waitForStatus((s) => s.poll.count >= polled + 2, { what: 'two more polls' });
    run.child.kill('SIGKILL');
    await run.exited;
    fs.writeFileSync(release, '');
    t.deepEqual(await survivors([a]), [], 'nothing orphaned');
    await blocked;
  });
}

test('a worker that ignores SIGTERM and holds a request: stop completes after killTimeout, forced', async (t) => {
  const port = await freePort();
  const run = startCli(t, [app('ignore-sigterm.js'), '-w', '1', '--kill-timeout', '2s', '--metrics', 'false'], base(port));
  const ready = await run.waitFor((e) => e.fixture === 'ignore-sigterm ready');
  const hanging = fetch(`http://127.0.0.1:${port}/hang`).catch((err) => err);
  await run.waitFor((e) => e.fixture === 'hang received', { what: 'the held request' });
  run.child.kill('SIGTERM');
  const done = await run.exited;
  t.is(done.exitCode, 0);
  // In order: the worker was given its whole killTimeout, then killed, and only then did the stop end.
  const exitAt = run.events.findIndex((e) => e.event === 'worker.exit' && e.pid === ready.pid);
  const stopAt = run.events.findIndex((e) => e.event === 'supervisor.stop');
  const exit = run.events[exitAt];
  t.true(exit.forced, 'the worker had to be killed');
  t.is(exit.signal, 'SIGKILL', 'SIGTERM was ignored, SIGKILL ended it');
  t.true(exit.drainMs >= 2000, `it was given its killTimeout to drain (drainMs ${exit.drainMs})`);
  t.true(exitAt >= 0 && exitAt < stopAt, `the worker exit (event ${exitAt}) came before supervisor.stop (event ${stopAt})`);
  t.false(alive(ready.pid));
  await hanging;
});
