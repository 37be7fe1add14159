// The promise nodesup makes: memory recycles under continuous keep-alive load drop no request.
import test from 'ava';
import { accountedLoad } from '../../bench/lib/accounted-load.js';
import { startCli, app, freePort, waitGone } from '../helpers/cli.js';

test('a leaking app under 16 keep-alive connections: several memory recycles, zero failed requests', async (t) => {
  const port = await freePort();
  const run = startCli(t, [app('leaky-http.js'), '-w', '2', '--max-rss', '110mb', '--poll-interval', '500ms', '--metrics', 'false', '--log-format', 'json'],
    { env: { PORT: String(port), LEAK_KB: '4' } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'two ready workers' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'two ready workers' });

  // Every request accounted for: a request lost on a connection closed under it counts as failed,
  // though autocannon alone would not see it.
  const loadStart = Date.now();
  const r = await accountedLoad({ url: `http://127.0.0.1:${port}/`, connections: 16, duration: 25 }).result;
  const loadEnd = Date.now();
  const recycles = run.events.filter((e) => e.event === 'worker.recycle');
  t.log(`requests ${r.sent}, failed ${r.failed} (errors ${r.errors}, timeouts ${r.timeouts}, non2xx ${r.non2xx}, lost silently ${r.lostSilently}), memory recycles ${recycles.length}`);
  t.true(r.responses > 1000, 'load actually ran');
  t.true(recycles.length >= 2, `at least two memory recycles (got ${recycles.length})`);
  for (const r of recycles) {
    t.is(r.reason, 'rss');
    // A predicted crossing is drained just before the limit, by the drain time at the leak's rate.
    if (r.predictive) t.true(r.value >= 0.9 * r.limit && r.crossingInMs >= 0);
    else t.true(r.value > r.limit);
    t.is(typeof r.memory.heapUsed, 'number');
  }
  t.is(r.failed, 0, 'no request failed, timed out, got a non-2xx or was lost with its connection');
  t.is(r.unaccounted, 0, 'every request sent is accounted for');

  const pids = [...run.pids];
  run.child.kill('SIGTERM');
  const done = await run.exited;
  t.is(done.exitCode, 0);
  t.deepEqual(await waitGone(pids), [], 'every worker ever started is gone');
  const exits = run.events.filter((e) => e.event === 'worker.exit');
  t.true(exits.every((e) => e.planned), 'every exit was planned: no crash under load');
  // How the recycles went: each drained by itself, while the load ran.
  const underLoad = exits.filter((e) => e.reason === 'rss' && Date.parse(e.time) < loadEnd);
  t.true(underLoad.length >= 2);
  for (const e of underLoad) {
    t.false(e.forced, `pid ${e.pid} drained by itself`);
    t.true(e.drainMs > 0 && Date.parse(e.time) - e.drainMs >= loadStart, `pid ${e.pid}: its drain overlapped the load`);
  }
});
