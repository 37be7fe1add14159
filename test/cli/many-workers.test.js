// Many workers at once: nothing in the primary warns about its own listeners, every worker is
// ready and sampled though a tick polls only a group of them, and a stop takes them all down.
import test from 'ava';
import fs from 'node:fs';
import { startCli, runCli, app, freePort, waitGone, writeConfig } from '../helpers/cli.js';

const N = 20; // past 16: two groups of slots take turns at the poll

test(`${N} workers start and stop: all ready, every slot sampled in turn, all gone, and no warning of the primary's own`, async (t) => {
  const port = await freePort();
  // 20 workers starting on a loaded 2-core machine: give each longer than the default 30 s.
  const config = writeConfig(t, { workers: N, pollInterval: '500ms', recycle: { readyTimeout: '2m' } });
  const run = startCli(t, [app('http.js'), '-c', config, '--metrics', 'false', '--log-format', 'json'], { env: { PORT: String(port) } });
  await run.waitFor(() => run.count((e) => e.event === 'worker.ready') >= N, { what: `${N} ready workers`, timeout: 110_000 });
  const pids = [...run.pids];
  t.is(pids.length, N);

  // Every slot's sample comes in, in either group, and keeps coming: a later snapshot has a newer one.
  const first = await run.waitForStatus((s) => s.slots.every((r) => r.last?.treeRss > 0), { what: 'every slot sampled' });
  await run.waitForStatus((s) => s.slots.every((r, i) => r.last?.t > first.slots[i].last.t), { what: 'every slot sampled again' });
  // The agent counts its worker's fds itself; the count is what /proc says of that worker.
  const snap = JSON.parse((await runCli(['status', '--json'], { env: { NODESUP_RUN_DIR: run.runDir } })).stdout);
  for (const r of snap.slots) {
    const seen = fs.readdirSync(`/proc/${r.pid}/fd`).length;
    t.true(Math.abs(r.last.fds - seen) <= 1, `slot ${r.slot}: agent ${r.last.fds} fds, /proc ${seen}`);
    // PSS comes from the agent's own smaps_rollup on a full read, estimated from it in between.
    t.true(r.last.pss > 0 && r.last.pss <= r.last.rss, `slot ${r.slot}: pss ${r.last.pss}, rss ${r.last.rss}`);
  }
  run.child.kill('SIGTERM');
  const done = await run.exited;
  t.is(done.exitCode, 0);
  t.deepEqual(await waitGone(pids), []);
  t.notRegex(done.stderr, /Warning/, 'no MaxListenersExceededWarning or any other');
});
