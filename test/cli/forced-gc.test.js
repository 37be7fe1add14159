// A full GC nodesup forces in a worker collects, and leaves the app's global as the user chose it:
// no `gc` after it unless the user gave --expose-gc, and the user's own `gc` when they did
// (src/worker/full-gc.js takes gc() from a fresh context for this).
import test from 'ava';
import { startCli, app, freePort, get, writeConfig } from '../helpers/cli.js';

const MiB = 1024 * 1024;

/** The app's `typeof gc` in the worker that ran the first forced GC, read after that GC. */
async function gcSeenAfterForcedGc(t, nodeArgs) {
  const port = await freePort();
  // --single-threaded-gc: RSS is mostly read after the GC gave the pages back (leak.test.js says why).
  const cfg = writeConfig(t, { leak: false, metrics: false, nodeArgs: [...nodeArgs, '--single-threaded-gc'] });
  const run = startCli(t, [app('gc-globals.js'), '-c', cfg, '-w', '1', '--max-rss', '150mb'], { env: { PORT: String(port), GARBAGE: '1' } });
  const gc = await run.waitFor((e) => e.event === 'worker.gc', { what: 'the forced GC' });
  // The heap figures are the agent's own, just before and after the GC.
  t.true(gc.heapBefore - gc.heapAfter > 100 * MiB, `the GC collected: heap ${gc.heapBefore} → ${gc.heapAfter}`);
  const seen = JSON.parse((await get(`http://127.0.0.1:${port}/`)).body);
  t.is(seen.pid, gc.pid, 'answered by the worker that ran the GC');
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
  return seen.gc;
}

test('without --expose-gc: a forced GC collects, and the app still has no gc', async (t) => {
  t.timeout(90_000);
  t.is(await gcSeenAfterForcedGc(t, []), 'undefined');
});

test('with the user\'s --expose-gc: a forced GC collects, and the app keeps its gc', async (t) => {
  t.timeout(90_000);
  t.is(await gcSeenAfterForcedGc(t, ['--expose-gc']), 'function');
});
