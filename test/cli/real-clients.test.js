// Zero loss as real clients see it, and as the servers record it: undici's Pool and a keep-alive
// http.Agent with idle gaps, through memory recycles and a reload. Every request carries an id
// the server echoes and writes to its own ledger; a request counts as answered only when its
// whole body echoes its id, and one still pending after a grace counts as failed.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { echoLoad, crossCheck } from '../../bench/lib/echo-load.js';
import { startCli, runCli, app, freePort, scratch, waitGone } from '../helpers/cli.js';

const DURATION_MS = 25_000;

test('undici Pool and keep-alive http.Agent with idle gaps, through memory recycles and a reload: every request answered with its own id, no drain forced', async (t) => {
  const port = await freePort();
  const ids = scratch();
  const run = startCli(t, [app('echo-leaky.js'), '-w', '2', '--max-rss', '110mb', '--poll-interval', '500ms', '--metrics', 'false', '--log-format', 'json'],
    { env: { PORT: String(port), LEAK_KB: '4', ID_LOG_DIR: ids } });
  await Promise.all([0, 1].map((slot) => run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` })));

  const url = `http://127.0.0.1:${port}/`;
  const loadStart = Date.now();
  const loads = Promise.all([
    echoLoad({ url, client: 'undici', connections: 8, durationMs: DURATION_MS }),
    echoLoad({ url, client: 'agent', connections: 4, durationMs: DURATION_MS, idleGapMs: 1500, firstId: 1e9 }),
  ]);
  // A reload in the middle of the load, once a memory recycle has come.
  await run.waitFor((e) => e.event === 'worker.exit' && e.reason === 'rss', { what: 'a memory recycle under load', timeout: DURATION_MS });
  const reload = await runCli(['reload'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(reload.exitCode, 0, reload.stderr);
  const [undici, agent] = await loads;
  const loadEnd = Date.now();

  // The servers' own record: every id a worker answered, from every worker that ever ran.
  await run.waitFor((e) => e.event === 'worker.exit' && e.reason === 'reload', { what: 'the reload\'s drains' });
  const pids = [...run.pids];
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
  t.deepEqual(await waitGone(pids), [], 'every worker ever started is gone');
  const served = new Set(fs.readdirSync(ids).flatMap((f) => fs.readFileSync(path.join(ids, f), 'utf8').split('\n').filter(Boolean)));

  for (const [name, r] of [['undici Pool, 8 connections', undici], ['http.Agent keep-alive, 4 sockets, idle gaps', agent]]) {
    const cross = crossCheck(r.ledger, served);
    t.log(`${name}: ${r.sent} requests, ${r.ok} ok, failed ${r.failed} ${JSON.stringify(r.failures)}, latency p50 ${r.latencyMs.p50} ms p99 ${r.latencyMs.p99} ms max ${r.latencyMs.max} ms; `
      + `answers no server recorded ${cross.okNotServed}, served but lost ${cross.servedButFailed}`);
    t.true(r.sent > 500, `${name}: the load ran`);
    t.is(r.failed, 0, `${name}: no request failed, was cut, got another's answer or hung`);
    t.is(cross.okNotServed, 0, `${name}: every answer the client took is one a server recorded`);
    t.is(cross.servedButFailed, 0, `${name}: no answer a server wrote was lost on the way`);
  }

  // How the recycles went: memory recycles and the reload, each drained while the load ran, none forced.
  const exits = run.events.filter((e) => e.event === 'worker.exit' && e.reason);
  const reasons = new Set(exits.map((e) => e.reason));
  t.true(reasons.has('rss') && reasons.has('reload'), `memory recycles and a reload (${[...reasons]})`);
  t.log(`recycles: ${exits.map((e) => `${e.reason} ${e.drainMs} ms`).join(', ')}`);
  for (const e of exits.filter((x) => Date.parse(x.time) < loadEnd)) {
    t.false(e.forced, `pid ${e.pid} (${e.reason}) drained by itself`);
    t.true(e.drainMs > 0 && Date.parse(e.time) - e.drainMs >= loadStart, `pid ${e.pid}: its drain ran while the load did`);
  }
  t.true(exits.filter((e) => Date.parse(e.time) < loadEnd).length >= 3, 'at least three recycles under load');
  t.true(run.events.filter((e) => e.event === 'worker.exit').every((e) => e.planned), 'no crash under load');
});
