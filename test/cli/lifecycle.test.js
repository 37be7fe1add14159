// Crashes, blocked event loops, limits below the app's baseline, and how the app is started.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, app, freePort, scratch, waitGone, get, writeConfig } from '../helpers/cli.js';

const env = async (extra = {}) => ({ env: { PORT: String(await freePort()), ...extra } });

test('an app that throws at start: restarts with growing back-off, then exit 1 with the app error shown', async (t) => {
  const run = startCli(t, [app('throw-at-start.js'), '-w', '1', '--metrics', 'false', '-c', writeConfig(t, { restart: { initialDelay: '50ms', maxDelay: '2s', maxCrashes: 5, crashWindow: '60s' } })]);
  const done = await run.exited;
  t.is(done.exitCode, 1);
  const delays = run.events.filter((e) => e.event === 'worker.restart').map((e) => e.delayMs);
  t.deepEqual(delays, [50, 100, 200, 400], 'back-off doubles after each crash');
  t.regex(done.stderr, /crashed 5 times within 60000 ms; giving up/);
  t.regex(done.stderr, /boom: cannot connect to database at db\.invalid:5432/, "the app's own error is shown");
  t.deepEqual(await waitGone(run.pids), []);
});

test('a worker whose event loop blocks is recycled as unresponsive', async (t) => {
  const e = await env();
  const run = startCli(t, [app('http.js'), '-w', '2', '--poll-interval', '200ms', '--metrics', 'false', '-c', writeConfig(t, { unresponsive: { timeout: '1500ms' }, recycle: { killTimeout: '1s' } })], e);
  await run.waitFor((ev) => ev.event === 'worker.ready' && ev.slot === 0);
  await run.waitFor((ev) => ev.event === 'worker.ready' && ev.slot === 1);
  fetch(`http://127.0.0.1:${e.env.PORT}/block`).catch(() => {});
  const recycle = await run.waitFor((ev) => ev.event === 'worker.recycle', { what: 'the unresponsive recycle' });
  t.is(recycle.reason, 'unresponsive');
  t.true(recycle.value >= 1500);
  const exit = await run.waitFor((ev) => ev.event === 'worker.exit' && ev.pid === recycle.pid, { what: 'the blocked worker gone' });
  t.true(exit.forced, 'a blocked worker cannot drain itself');
  const res = await get(`http://127.0.0.1:${e.env.PORT}/`);
  t.is(res.status, 200, 'the app still serves');
});

test('a worker killed from outside (as the OOM killer would) is reported and its slot refilled', async (t) => {
  const opts = await env();
  const run = startCli(t, [app('http.js'), '-w', '1', '--metrics', 'false'], opts);
  const ready = await run.waitFor((e) => e.event === 'worker.ready');
  process.kill(ready.pid, 'SIGKILL');
  const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === ready.pid);
  t.is(exit.signal, 'SIGKILL');
  t.false(exit.planned);
  t.false(exit.forced, 'not killed by us');
  const restart = await run.waitFor((e) => e.event === 'worker.restart');
  t.like(restart, { slot: 0, delayMs: 100 }, 'the default restart.initialDelay');
  const again = await run.waitFor((e) => e.event === 'worker.spawn' && e.cause === 'restart');
  t.is(again.slot, 0);
  t.not(again.pid, ready.pid);
  const back = await run.waitFor((e) => e.event === 'worker.ready' && e.pid === again.pid);
  // In order: exit, restart, spawn, ready; and the refilled slot serves.
  const order = [exit, restart, again, back].map((x) => run.events.indexOf(x));
  t.deepEqual(order, [...order].sort((a, b) => a - b), 'exit, restart, spawn, ready');
  t.is((await get(`http://127.0.0.1:${opts.env.PORT}/`)).body, `ok ${again.pid}\n`);
});

test('a limit below the app baseline warns and holds instead of looping recycles', async (t) => {
  const run = startCli(t, [app('below-baseline.js'), '-w', '1', '--max-rss', '100mb', '--poll-interval', '200ms', '--metrics', 'false'], await env());
  const warning = await run.waitFor((e) => e.event === 'limit.below-baseline', { what: 'the baseline warning' });
  t.is(warning.reason, 'rss');
  t.true(warning.value > warning.limit);
  t.true(warning.holdMs >= 30_000);
  // Proof of no loop: ten more polls of that worker (a loop would recycle on the next one).
  const snap = await run.waitForStatus((s) => s.slots[0].last && s.slots[0].last.t > Date.parse(warning.time) + 2000, { what: '10 more polls' });
  // On a failure, what happened to the worker says why.
  const since = run.events.filter((e) => Date.parse(e.time) >= Date.parse(warning.time)).map((e) => e.msg ?? e.event);
  t.is(snap.slots[0].pid, warning.pid, `the same worker still serves; events since the warning: ${JSON.stringify(since)}`);
  t.is(run.count((e) => e.event === 'worker.recycle'), 0);
});

test('app args after --, nodeArgs and env reach the worker; ready() works without a server', async (t) => {
  const out = scratch();
  const cfg = writeConfig(t, { nodeArgs: ['--max-semi-space-size=16'], env: { OUT_DIR: out } });
  const run = startCli(t, [app('ready-signal.js'), '-w', '2', '--metrics', 'false', '-c', cfg, '--', '--flag', 'value']);
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0);
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1);
  const files = fs.readdirSync(out).map((f) => JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')));
  t.is(files.length, 2);
  for (const f of files) {
    t.deepEqual(f.argv, ['--flag', 'value']);
    t.is(f.argv1, app('ready-signal.js'), 'process.argv[1] is the app, as without nodesup');
    t.true(f.execArgv.includes('--max-semi-space-size=16'));
  }
  t.deepEqual(files.map((f) => f.slot).sort(), ['0', '1']);
});

test('a CommonJS app sees itself as require.main', async (t) => {
  const e = await env();
  const run = startCli(t, [app('cjs-app.cjs'), '-w', '1', '--metrics', 'false'], e);
  await run.waitFor((ev) => ev.event === 'worker.ready');
  t.is((await get(`http://127.0.0.1:${e.env.PORT}/`)).body, 'cjs ok\n');
});
