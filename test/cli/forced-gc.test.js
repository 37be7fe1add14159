// A full GC nodesup forces in a worker collects, and leaves the app's global as the user chose it:
// no `gc` after it unless the user gave --expose-gc, and the user's own `gc` when they did. nodesup's
// own gc() (each worker starts with it under nodesup's name: src/worker/full-gc.js says why) is out
// of the app's reach.
import test from 'ava';
import { startCli, app, freePort, get, writeConfig } from '../helpers/cli.js';
import { GC_GLOBAL } from '../../src/constants.js';

const MiB = 1024 * 1024;

/** What the worker that ran the first forced GC says of its globals, read after that GC. */
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
  return seen;
}

test('without --expose-gc: a forced GC collects, and the app still has no gc', async (t) => {
  t.timeout(90_000);
  const seen = await gcSeenAfterForcedGc(t, []);
  t.is(seen.gc, 'undefined');
  t.is(seen.ours, 'undefined', "nodesup's gc() taken and its global emptied before the app ran");
  t.true(seen.execArgv.includes(`--expose-gc-as=${GC_GLOBAL}`), seen.execArgv.join(' '));
});

test('with the user\'s --expose-gc: a forced GC collects, and the app keeps its gc', async (t) => {
  t.timeout(90_000);
  const seen = await gcSeenAfterForcedGc(t, ['--expose-gc']);
  t.is(seen.gc, 'function');
  t.false(seen.execArgv.some((a) => a.startsWith('--expose-gc-as')), 'no name of nodesup\'s beside it');
});
