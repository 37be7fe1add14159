// The deploy promise: `nodesup reload` under continuous keep-alive load drops no request.
import test from 'ava';
import { accountedLoad } from '../../bench/lib/accounted-load.js';
import { startCli, runCli, app, freePort, waitGone } from '../helpers/cli.js';

const CONNECTIONS = 16;
// The load runs until both reloads are done and is then stopped: a fixed 20 s ran out before the
// second round on a loaded host (start-ups of 2–3 s each). This is only its ceiling.
const DURATION_S = 120;
const BETWEEN = 1500; // responses served before each reload starts: the load is really flowing

test('nodesup reload twice under 16 keep-alive connections: every slot replaced each time, zero failed requests', async (t) => {
  const port = await freePort();
  const run = startCli(t, [app('http.js'), '-w', '2', '--metrics', 'false', '--poll-interval', '500ms'], { env: { PORT: String(port) } });
  let current = await Promise.all([0, 1].map((slot) => run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` })));

  let responses = 0;
  let waiter = null;
  const afterResponses = (n) => new Promise((resolve) => {
    const target = responses + n;
    waiter = () => { if (responses >= target) { waiter = null; resolve(); } };
  });
  // Every request accounted for: one lost on a connection closed under it counts as failed.
  const load = accountedLoad({ url: `http://127.0.0.1:${port}/`, connections: CONNECTIONS, duration: DURATION_S });
  let loadDone = false;
  load.instance.on('response', () => { responses++; waiter?.(); });
  const finished = load.result.then((r) => { loadDone = true; return r; });
  t.teardown(() => load.instance.stop());

  const rounds = [];
  for (let round = 1; round <= 2; round++) {
    await afterResponses(BETWEEN);
    const before = responses;
    const r = await runCli(['reload', '--json'], { env: { NODESUP_RUN_DIR: run.runDir } });
    t.is(r.exitCode, 0, r.stderr);
    t.is(JSON.parse(r.stdout).reloaded, 2, `round ${round}: both slots reloaded`);
    // Every slot of this round's fleet was replaced by a new, ready worker, and the old one is gone.
    const next = [];
    for (const old of current) {
      const rec = await run.waitFor((e) => e.event === 'worker.recycle' && e.pid === old.pid, { what: `round ${round}: slot ${old.slot} recycled` });
      t.is(rec.reason, 'reload');
      const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === old.pid, { what: `round ${round}: pid ${old.pid} gone` });
      t.true(exit.planned && !exit.forced, `round ${round}: slot ${old.slot} drained by itself (forced: ${exit.forced})`);
      const spawn = run.events.find((e) => e.event === 'worker.spawn' && e.slot === old.slot && e.cause === 'replace' && run.events.indexOf(e) > run.events.indexOf(rec));
      next.push(await run.waitFor((e) => e.event === 'worker.ready' && e.pid === spawn.pid, { what: `round ${round}: slot ${old.slot} replacement ready` }));
    }
    t.false(loadDone, `round ${round} finished while the load still ran`);
    rounds.push({ round, served: responses - before, drainMs: run.events.filter((e) => e.event === 'worker.exit' && current.some((o) => o.pid === e.pid)).map((e) => e.drainMs) });
    current = next;
  }
  // A last stretch of load on the workers of round 2, then the end of it.
  await afterResponses(BETWEEN);
  load.instance.stop();

  const result = await finished;
  t.log(`${CONNECTIONS} keep-alive connections through 2 reloads, 2 workers: requests ${result.sent} (${Math.round(result.reqPerSec.mean)}/s), `
    + `failed ${result.failed} (errors ${result.errors}, timeouts ${result.timeouts}, non2xx ${result.non2xx}, lost silently ${result.lostSilently}), `
    + `latency p50 ${result.latencyMs.p50} ms p99 ${result.latencyMs.p99} ms max ${result.latencyMs.max} ms`);
  for (const r of rounds) t.log(`reload ${r.round}: ${r.served} responses served during it, old workers drained in ${r.drainMs.join(' and ')} ms`);
  t.true(result.responses > 1000, 'load actually ran');
  t.is(result.failed, 0, 'no request failed, timed out, got a non-2xx or was lost with its connection');
  t.is(result.unaccounted, 0, 'every request sent is accounted for');
  t.is(run.count((e) => e.event === 'worker.recycle' && e.reason === 'reload'), 4, 'two slots, twice');
  t.is(run.count((e) => e.event === 'worker.recycle' && e.reason !== 'reload'), 0, 'no other recycle muddled the figures');

  const pids = [...run.pids];
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
  t.deepEqual(await waitGone(pids), [], 'every worker ever started is gone');
  t.true(run.events.filter((e) => e.event === 'worker.exit').every((e) => e.planned), 'no crash under load');
});
