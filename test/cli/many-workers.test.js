// Many workers at once: nothing in the primary warns about its own listeners, every worker is
// ready, and a stop takes them all down.
import test from 'ava';
import { startCli, app, freePort, waitGone, writeConfig } from '../helpers/cli.js';

test('16 workers start and stop: all ready, all gone, and the primary prints no warning of its own', async (t) => {
  const port = await freePort();
  // 16 workers starting on a loaded 2-core machine: give each longer than the default 30 s.
  const config = writeConfig(t, { workers: 16, recycle: { readyTimeout: '2m' } });
  const run = startCli(t, [app('http.js'), '-c', config, '--metrics', 'false', '--log-format', 'json'], { env: { PORT: String(port) } });
  await run.waitFor(() => run.count((e) => e.event === 'worker.ready') >= 16, { what: '16 ready workers', timeout: 110_000 });
  const pids = [...run.pids];
  t.is(pids.length, 16);
  run.child.kill('SIGTERM');
  const done = await run.exited;
  t.is(done.exitCode, 0);
  t.deepEqual(await waitGone(pids), []);
  t.notRegex(done.stderr, /Warning/, 'no MaxListenersExceededWarning or any other');
});
