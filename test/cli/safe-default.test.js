// Safe by default: in a container with a memory limit and a config that sets no memory limit, the
// kernel's OOM killer is not the only limit. A fake cgroup v2 root (512 MiB) stands in for the pod.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCli, app, freePort, scratch, waitGone } from '../helpers/cli.js';

const V2 = fileURLToPath(new URL('../fixtures/cgroup/v2', import.meta.url));
const MiB = 1024 * 1024;
const isDefault = (e) => e.event === 'config.default' && e.key === 'limits.totalRss';

function fakeCgroup(t) {
  const dir = path.join(scratch(), 'cgroup');
  fs.cpSync(V2, dir, { recursive: true });
  t.teardown(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));
  return dir;
}

test('no memory limit set, a 512 MiB container: a worker whose children grow is recycled below the limit, the default said once with how to change it', async (t) => {
  t.timeout(150_000);
  const cgroup = fakeCgroup(t);
  const limit = Number(fs.readFileSync(path.join(cgroup, 'memory.max'), 'utf8'));
  t.is(limit, 512 * MiB, 'the fixture this test is sized for');
  // The children of slot 0's worker grow 600 MiB a minute (the issue's 257, faster): at the
  // defaults a children leak is named over a 5-minute window, long after such a pod met the kernel.
  const run = startCli(t, [app('children-leak.js'), '-w', '2', '--metrics', 'false', '--poll-interval', '250ms'], {
    env: { PORT: String(await freePort()), NODESUP_CGROUP_ROOT: cgroup, LEAK_SLOT: '0', CHILD_MB_PER_MIN: '600', CHILD_MAX_MB: '700' },
  });
  const start = await run.waitFor((e) => e.event === 'supervisor.start');
  t.like(start.limits, { rss: null, heapUsed: null, native: null, totalRss: null });
  const said = await run.waitFor(isDefault, { what: 'the default limit said' });
  t.is(said.cgroupMemoryLimit, limit);
  t.is(said.value, start.totalRssLimit, 'the limit the supervisor runs with');
  t.is(said.value, limit - said.primaryRss - said.margin - said.snapshotBudget);
  t.true(said.primaryRss > 20 * MiB && said.primaryRss < 200 * MiB, `the primary measured: ${said.primaryRss}`);
  t.regex(said.msg, /recycled past \d+ MiB together .*; set limits\.totalRss or limits\.rss to choose$/);

  const leak = await run.waitFor((e) => e.fixture === 'children-leak', { what: 'the leaking child' });
  const recycle = await run.waitFor((e) => e.event === 'worker.recycle', { what: 'the recycle', timeout: 120_000 });
  t.like(recycle, { slot: 0, pid: leak.worker, reason: 'total-rss', limit: said.value });
  t.true(recycle.value > said.value && recycle.value < limit, `recycled at ${recycle.value}, below the container's ${limit}`);
  t.true(recycle.memory.children > 150 * MiB, 'the children hold it');
  t.log(`${recycle.msg}; default ${said.value} B, the container's ${limit} B`);
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === leak.worker, { what: 'the old worker gone' });
  t.deepEqual(await waitGone([leak.child]), [], 'its children with it');
  t.is(run.count(isDefault), 1, 'said once');
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('a memory limit in the config wins: no default, nothing said', async (t) => {
  const cgroup = fakeCgroup(t);
  const run = startCli(t, [app('http.js'), '-w', '2', '--max-rss', '1gb', '--metrics', 'false'], { env: { PORT: String(await freePort()), NODESUP_CGROUP_ROOT: cgroup } });
  const start = await run.waitFor((e) => e.event === 'supervisor.start');
  t.is(start.totalRssLimit, null);
  // Defaults are said at start, before the first fork.
  await run.waitFor((e) => e.event === 'worker.spawn', { what: 'the first fork' });
  t.is(run.count(isDefault), 0);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});
