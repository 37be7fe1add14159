// Workers that misbehave while being drained: one that exits by itself half-way, one that
// ignores SIGTERM and holds keep-alive connections open. Nothing restarts by mistake, nothing
// is left running, and every exit says whether it was planned and forced.
import test from 'ava';
import { freePort, waitGone, get } from '../helpers/cli.js';
import { faultApp, writeConfig, control, allPids, exited, rawConnection, within, signal, start } from './_helpers.js';

for (const when of ['disconnect', 'shutdown', 'drain']) {
  test(`a worker that exits by itself during its drain (${when}): a planned exit, no restart, the replacement serves`, async (t) => {
    const port = await freePort();
    const run = start(t, [faultApp('exit-in-drain.js'), '-w', '2', '--metrics', 'false', '--poll-interval', '300ms'],
      { env: { PORT: String(port), EXIT_WHEN: when } });
    const first = [
      await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' }),
      await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' }),
    ].map((e) => e.pid);

    const r = await control(run, ['reload', '--json']);
    t.is(r.exitCode, 0, r.stderr);
    t.is(JSON.parse(r.stdout).reloaded, 2, 'both slots were reloaded');

    for (const pid of first) {
      const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === pid, { what: `pid ${pid} exit` });
      t.like(exit, { code: 3, signal: null, planned: true, forced: false, reason: 'reload' }, `pid ${pid}`);
      t.true(run.events.some((e) => e.fixture === 'exiting in drain' && e.pid === pid && e.how === when), 'it did exit by itself');
    }
    t.deepEqual(await waitGone(first), []);
    const replacements = run.events.filter((e) => e.event === 'worker.spawn' && e.cause === 'replace').map((e) => e.pid);
    t.is(replacements.length, 2);
    const snap = await run.waitForStatus((s) => s.slots.every((row) => row.state === 'ready' && replacements.includes(row.pid)),
      { what: 'both slots served by the replacements', timeout: 20_000 });
    t.is(snap.slots.length, 2);
    for (let i = 0; i < 4; i++) {
      const body = (await get(`http://127.0.0.1:${port}/`)).body;
      t.true(replacements.some((pid) => body === `ok ${pid}\n`), `served by a replacement: ${body}`);
    }
    t.is(run.count((e) => e.event === 'worker.restart'), 0, 'no restart: the exit was planned');
    t.is(run.count((e) => e.event === 'worker.spawn'), 4, 'two initial workers and two replacements, nothing more');

    signal(run, 'SIGTERM');
    t.is((await exited(run)).exitCode, 0);
    t.deepEqual(await waitGone(allPids(run)), [], 'nothing left running');
  });
}

// Opens idle keep-alive connections (one answered request each) and connections holding a request
// the app never answers, until every worker in `pids` holds at least one of each.
async function holdConnections(t, port, pids) {
  const idle = [];
  const hung = [];
  for (let i = 0; i < 40 && !pids.every((pid) => idle.some((c) => c.pid === pid)); i++) {
    const c = await rawConnection(t, port);
    const head = await within(c.get('/'), 10_000, 'a keep-alive answer');
    t.regex(head, /Connection: keep-alive/i);
    c.pid = Number(/ok (\d+)/.exec(head)?.[1]);
    idle.push(c);
  }
  t.true(pids.every((pid) => idle.some((c) => c.pid === pid)), 'every worker holds an idle keep-alive connection');
  for (let i = 0; i < 2 * pids.length; i++) {
    const c = await rawConnection(t, port);
    c.send('/hang');
    hung.push(c);
  }
  return { idle, hung };
}

test('a worker that ignores SIGTERM and holds keep-alive connections: stop is forced after killTimeout, connections closed, nothing left', async (t) => {
  const port = await freePort();
  const run = start(t, [faultApp('stubborn-keepalive.js'), '-w', '2', '--kill-timeout', '2s', '--metrics', 'false', '--name', 'stubborn'],
    { env: { PORT: String(port) } });
  const pids = [
    await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' }),
    await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' }),
  ].map((e) => e.pid);
  const { idle, hung } = await holdConnections(t, port, pids);
  await run.waitFor((e) => e.fixture === 'hang received' && e.pid === pids[0], { what: 'a held request in slot 0' });
  await run.waitFor((e) => e.fixture === 'hang received' && e.pid === pids[1], { what: 'a held request in slot 1' });

  const r = await control(run, ['stop']);
  t.is(r.exitCode, 0, r.stderr);
  // The stop may not hang: `exited` fails the test past its (generous) timeout.
  const done = await exited(run, 40_000);
  t.is(done.exitCode, 0, done.stderr);
  // In order: each worker was given its whole killTimeout, then killed, and only then did the stop end.
  const stopAt = run.events.findIndex((e) => e.event === 'supervisor.stop');
  t.true(stopAt >= 0, 'supervisor.stop was logged');
  for (const pid of pids) {
    const exitAt = run.events.findIndex((e) => e.event === 'worker.exit' && e.pid === pid);
    const exit = run.events[exitAt];
    t.like(exit, { planned: true, forced: true, signal: 'SIGKILL' }, `pid ${pid}`);
    t.true(exit.drainMs >= 2000, `pid ${pid} was given its killTimeout to drain (drainMs ${exit.drainMs})`);
    t.true(exitAt < stopAt, `pid ${pid} exited before the stop ended`);
    t.true(run.events.some((e) => e.fixture === 'ignored SIGTERM' && e.pid === pid), 'SIGTERM was sent and ignored');
  }
  t.deepEqual(run.events.slice(stopAt + 1).filter((e) => e.event), [], 'nothing happens after the stop');
  await within(Promise.all([...idle, ...hung].map((c) => c.closed)), 10_000, 'every client connection closed');
  t.is(run.count((e) => e.event === 'supervisor.stop'), 1);
  t.deepEqual(await waitGone(allPids(run)), [], 'nothing left running');
});

test('recycling a worker that ignores SIGTERM and holds connections: forced after killTimeout, the replacement serves', async (t) => {
  const port = await freePort();
  const run = start(t, [faultApp('stubborn-keepalive.js'), '-w', '1', '--kill-timeout', '2s', '--metrics', 'false'],
    { env: { PORT: String(port) } });
  const old = (await run.waitFor((e) => e.event === 'worker.ready', { what: 'the worker ready' })).pid;
  const { idle, hung } = await holdConnections(t, port, [old]);
  await run.waitFor((e) => e.fixture === 'hang received' && e.pid === old, { what: 'a held request' });

  const r = await control(run, ['recycle', '0', '--json']);
  t.is(r.exitCode, 0, r.stderr);
  t.is(JSON.parse(r.stdout).result, 'recycled');
  const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === old, { what: 'the old worker exit' });
  t.like(exit, { planned: true, forced: true, signal: 'SIGKILL', reason: 'manual' });
  t.true(exit.drainMs >= 2000, `it was given its killTimeout to drain (drainMs ${exit.drainMs})`);
  await within(Promise.all([...idle, ...hung].map((c) => c.closed)), 10_000, "the old worker's connections closed");
  const next = run.events.find((e) => e.event === 'worker.spawn' && e.cause === 'replace').pid;
  t.is((await get(`http://127.0.0.1:${port}/`)).body, `ok ${next}\n`, 'the replacement serves');
  t.is(run.count((e) => e.event === 'worker.restart'), 0);

  signal(run, 'SIGTERM');
  t.is((await exited(run)).exitCode, 0);
  t.deepEqual(await waitGone(allPids(run)), [], 'nothing left running');
});
