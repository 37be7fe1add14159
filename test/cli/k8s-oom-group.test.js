// memory.oom.group 1 (Kubernetes 1.28+ on cgroup v2): at the container's limit the kernel kills the
// whole pod. A fixture cgroup root that says so stands in for the pod; the advice comes at start.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { startCli, app, freePort } from '../helpers/cli.js';

const OOM_GROUP = fileURLToPath(new URL('../fixtures/cgroup/v2-oom-group', import.meta.url));
const isAdvice = (e) => e.event === 'worker.advice' && e.code === 'oom-group';

test('memory.oom.group 1 and no limits.rss: the start says the whole pod goes and the limits.rss that keeps it', async (t) => {
  const run = startCli(t, [app('http.js'), '-w', '2', '--metrics', 'false'], { env: { PORT: String(await freePort()), NODESUP_CGROUP_ROOT: OOM_GROUP } });
  const start = await run.waitFor((e) => e.event === 'supervisor.start');
  t.is(start.oomGroup, true);
  const advice = await run.waitFor(isAdvice, { what: 'the oom-group advice' });
  t.like(advice, { level: 40, cgroupLimit: 512 * 1024 * 1024, workers: 2, rssLimit: null });
  t.regex(advice.msg, /^memory\.oom\.group: a worker at the 512 MiB limit takes the whole pod; set limits\.rss ≤ (\d+) MiB to recycle it first$/);
  t.is(Number(/≤ (\d+) MiB/.exec(advice.msg)[1]), Math.floor(advice.share / 1024 / 1024));
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('memory.oom.group 1 and a limits.rss within each worker\'s share: nothing to advise', async (t) => {
  const run = startCli(t, [app('http.js'), '-w', '2', '--max-rss', '150mb', '--metrics', 'false'], { env: { PORT: String(await freePort()), NODESUP_CGROUP_ROOT: OOM_GROUP } });
  t.is((await run.waitFor((e) => e.event === 'supervisor.start')).oomGroup, true);
  // Start-up advice is said before the first fork.
  await run.waitFor((e) => e.event === 'worker.spawn', { what: 'the first fork' });
  t.is(run.count(isAdvice), 0);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});
