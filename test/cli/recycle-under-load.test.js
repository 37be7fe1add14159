// The promise nodesup makes: memory recycles under continuous keep-alive load drop no request.
import test from 'ava';
import autocannon from 'autocannon';
import { startCli, app, freePort, waitGone } from '../helpers/cli.js';

test('a leaking app under 16 keep-alive connections: several memory recycles, zero failed requests', async (t) => {
  const port = await freePort();
  const run = startCli(t, [app('leaky-http.js'), '-w', '2', '--max-rss', '110mb', '--poll-interval', '500ms', '--metrics', 'false', '--log-format', 'json'],
    { env: { PORT: String(port), LEAK_KB: '4' } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'two ready workers' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'two ready workers' });

  const result = await autocannon({ url: `http://127.0.0.1:${port}/`, connections: 16, duration: 25 });
  const failed = result.errors + result.timeouts + result.non2xx;
  const recycles = run.events.filter((e) => e.event === 'worker.recycle');
  t.log(`requests ${result.requests.total}, failed ${failed} (errors ${result.errors}, timeouts ${result.timeouts}, non2xx ${result.non2xx}), memory recycles ${recycles.length}`);
  t.true(result.requests.total > 1000, 'load actually ran');
  t.true(recycles.length >= 2, `at least two memory recycles (got ${recycles.length})`);
  for (const r of recycles) {
    t.is(r.reason, 'rss');
    t.true(r.value > r.limit);
    t.is(typeof r.memory.heapUsed, 'number');
  }
  t.is(failed, 0, 'no request failed, timed out or got a non-2xx');

  const pids = [...run.pids];
  run.child.kill('SIGTERM');
  const done = await run.exited;
  t.is(done.exitCode, 0);
  t.deepEqual(await waitGone(pids), [], 'every worker ever started is gone');
  const exits = run.events.filter((e) => e.event === 'worker.exit');
  t.true(exits.every((e) => e.planned), 'every exit was planned: no crash under load');
});
