// More workers than cores, each needing the CPU to start: forked at once, each spends most of its
// start-up queued for a core. readyTimeout bounds the app's own time, so none is killed as not
// ready and the supervisor starts rather than giving up in a crash loop. Here 12 workers each need
// 1 s of CPU against a 4 s readyTimeout: on 2 cores they are all ready after ~6 s of wall time.
import test from 'ava';
import { freePort, get, waitGone } from '../helpers/cli.js';
import { faultApp, writeConfig, allPids, exited, signal, start } from './_helpers.js';

test('workers starved of CPU at start-up are not killed as not ready', async (t) => {
  const port = await freePort();
  const workers = 12;
  const cfg = writeConfig(t, { workers, metrics: false, recycle: { readyTimeout: '4s' } });
  const run = start(t, [faultApp('cpu-heavy-start.js'), '-c', cfg], { env: { PORT: String(port), BURN_MS: '1000' } });
  const ready = new Set();
  await run.waitFor((e) => {
    if (e.event === 'worker.ready') ready.add(e.slot);
    return ready.size === workers;
  }, { what: `all ${workers} workers ready`, timeout: 180_000 });
  t.is(run.count((e) => e.event === 'worker.exit'), 0, 'no worker was killed or exited');
  t.is(run.count((e) => e.event === 'worker.restart'), 0, 'no restart');
  t.regex((await get(`http://127.0.0.1:${port}/`)).body, /^ok \d+\n$/);
  const snap = await run.status();
  t.is(snap.slots.filter((s) => s.state === 'ready').length, workers);

  signal(run, 'SIGTERM');
  t.is((await exited(run)).exitCode, 0);
  t.deepEqual(await waitGone(allPids(run)), [], 'nothing left running');
});
