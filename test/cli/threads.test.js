// worker_threads: the agent sees the threads an app starts and their heaps, the breakdown does not
// file those heaps under native memory, and a leak inside a thread is named as a heap leak.
// Worker#getHeapStatistics() came in Node 22.16: before that only the thread count is known.
import test from 'ava';
import { startCli, app, freePort, writeConfig } from '../helpers/cli.js';

const [major, minor] = process.versions.node.split('.').map(Number);
const LEAK_MB_PER_MIN = 30;
const heapsVisible = major > 22 || (major === 22 && minor >= 16);

test('a thread is seen; its heap is reported (Node ≥ 22.16) and its leak recycled as kind heap', async (t) => {
  t.timeout(4 * 60_000); // ~30 s alone; far longer beside the rest of the suite on 2 loaded cores
  const port = await freePort();
  const cfg = writeConfig(t, { workers: 1, pollInterval: '250ms', metrics: false, limits: { rss: '1gb' }, leak: { window: '10s', minGrowth: '1mb/min' } });
  const run = startCli(t, [app('thread-leak.js'), '-c', cfg], { env: { PORT: String(port), LEAK_MB_PER_MIN: String(LEAK_MB_PER_MIN) } });
  await run.waitFor((e) => e.event === 'worker.ready', { what: 'ready' });
  const snap = await run.waitForStatus((s) => s.slots[0]?.last?.threads === 1 && (!heapsVisible || s.slots[0].last.threadsHeapUsed > 0), { what: 'the thread in a sample' });
  const last = snap.slots[0].last;
  if (!heapsVisible) {
    t.is(last.threadsHeapUsed, null, 'unknown on this Node line, never 0');
    t.log(`Node ${process.version}: thread heaps are not visible before 22.16; only the count is`);
    run.child.kill('SIGTERM');
    t.is((await run.exited).exitCode, 0);
    return;
  }
  t.true(last.threadsHeapUsed > 1024 * 1024);
  const ev = await run.waitFor((e) => e.event === 'worker.recycle' && e.reason === 'leak', { what: 'the thread leak recycled', timeout: 180_000 });
  t.is(ev.kind, 'heap', 'a thread heap leak is a heap leak, not native');
  // The thread's own rate, not a GC sawtooth of the main thread's (~70 KiB/s in a 10 s window).
  t.true(ev.trend.growthBytesPerSec > (0.5 * LEAK_MB_PER_MIN * 1024 * 1024) / 60, `${ev.trend.growthBytesPerSec} B/s`);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});
