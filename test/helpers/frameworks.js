// One scenario for every app people start with (hono, @hapi/hapi, a TypeScript entry): the real CLI,
// two workers of an app that keeps a little memory per request, so that it crosses its rss limit
// by design, and a `nodesup reload` once a memory recycle has come, all under load from three
// real clients at once:
//  - autocannon, its every request accounted for (bench/lib/accounted-load.js);
//  - undici's Pool, keep-alive, each request's id echoed and checked (bench/lib/echo-load.js);
//  - node's http.Agent, keep-alive, pausing now and then so idle sockets meet the drains.
// Then: no request failed for any client, every answer a client took is one a worker recorded
// (test/fixtures/apps/frameworks/ledger.js), and every worker left by itself (forced false).
import fs from 'node:fs';
import path from 'node:path';
import { accountedLoad } from '../../bench/lib/accounted-load.js';
import { echoLoad, crossCheck } from '../../bench/lib/echo-load.js';
import { startCli, runCli, freePort, scratch, waitGone, APPS } from './cli.js';

export const frameworkApp = (name) => path.join(APPS, 'frameworks', name);

/**
 * @param {import('ava').ExecutionContext} t
 * @param {{script: string, maxRss: string, durationMs?: number, leakKb?: number}} o
 * maxRss: the app's rss at rest plus room for a few seconds of its leak under this load.
 */
export async function recyclesAndReloadUnderLoad(t, { script, maxRss, durationMs = 20_000, leakKb = 4 }) {
  const port = await freePort();
  const ids = scratch();
  t.teardown(() => fs.rmSync(ids, { recursive: true, force: true }));
  const run = startCli(t, [script, '-w', '2', '--max-rss', maxRss, '--poll-interval', '500ms', '--metrics', 'false', '--log-format', 'json'],
    { env: { PORT: String(port), LEAK_KB: String(leakKb), ID_LOG_DIR: ids } });
  await Promise.all([0, 1].map((slot) => run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` })));

  const url = `http://127.0.0.1:${port}/`;
  // The load runs until the reload is over, not for a set time: on a loaded machine the recycle
  // and the drains come later. Three times durationMs is only its limit.
  const maxMs = durationMs * 3;
  const loadStart = Date.now();
  let loadEnd = Infinity;
  const stop = new AbortController();
  const cannonLoad = accountedLoad({ url, connections: 8, duration: Math.round(maxMs / 1000) });
  stop.signal.addEventListener('abort', () => cannonLoad.instance.stop(), { once: true });
  const loads = Promise.all([
    cannonLoad.result,
    echoLoad({ url, client: 'undici', connections: 4, durationMs: maxMs, signal: stop.signal }),
    echoLoad({ url, client: 'agent', connections: 2, durationMs: maxMs, idleGapMs: 1500, firstId: 1e9, signal: stop.signal }),
  ]).then((r) => { loadEnd = Date.now(); return r; });

  // The reload comes once the leak has cost a worker its place: both kinds of recycle under load.
  await run.waitFor((e) => e.event === 'worker.exit' && e.reason === 'rss', { what: 'a memory recycle under load', timeout: maxMs });
  const reload = await runCli(['reload'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(reload.exitCode, 0, `nodesup reload: ${reload.stderr}${reload.stdout}`);
  const reloaded = await Promise.all([0, 1].map((slot) => run.waitFor((e) => e.event === 'worker.exit' && e.reason === 'reload' && e.slot === slot,
    { what: `slot ${slot}'s old worker drained by the reload`, timeout: maxMs })));
  stop.abort();
  const [cannon, undici, agent] = await loads;
  t.true(reloaded.every((e) => Date.parse(e.time) < loadEnd), 'the reload was over while the load still ran');

  const pids = [...run.pids];
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0, 'a clean stop');
  t.deepEqual(await waitGone(pids), [], 'every worker ever started is gone');
  const served = new Set(fs.readdirSync(ids).flatMap((f) => fs.readFileSync(path.join(ids, f), 'utf8').split('\n').filter(Boolean)));

  t.log(`autocannon, 8 connections: ${cannon.sent} requests, failed ${cannon.failed} (errors ${cannon.errors}, timeouts ${cannon.timeouts}, `
    + `non2xx ${cannon.non2xx}, lost silently ${cannon.lostSilently}), latency p99 ${cannon.latencyMs.p99} ms`);
  t.true(cannon.responses > 500, 'autocannon: the load ran');
  t.is(cannon.failed, 0, 'autocannon: no request failed, timed out, got a non-2xx or was lost with its connection');
  t.is(cannon.unaccounted, 0, 'autocannon: every request sent is accounted for');
  for (const [name, r] of [['undici Pool, 4 connections', undici], ['http.Agent keep-alive, 2 sockets, idle gaps', agent]]) {
    const cross = crossCheck(r.ledger, served);
    t.log(`${name}: ${r.sent} requests, ${r.ok} ok, failed ${r.failed} ${JSON.stringify(r.failures)}, latency p99 ${r.latencyMs.p99} ms; `
      + `answers no worker recorded ${cross.okNotServed}, recorded but lost ${cross.servedButFailed}`);
    t.true(r.sent > 100, `${name}: the load ran`);
    t.is(r.failed, 0, `${name}: no request failed, was cut, got another's answer or hung`);
    t.is(cross.okNotServed, 0, `${name}: every answer taken is one a worker recorded`);
    t.is(cross.servedButFailed, 0, `${name}: no answer a worker wrote was lost on the way`);
  }

  const exits = run.events.filter((e) => e.event === 'worker.exit');
  const recycled = exits.filter((e) => e.reason);
  t.log(`recycles: ${recycled.map((e) => `${e.reason} (drained in ${e.drainMs} ms)`).join(', ')}`);
  t.deepEqual([...new Set(recycled.map((e) => e.reason))].sort(), ['reload', 'rss'], 'memory recycles and the reload, nothing else');
  for (const e of recycled.filter((x) => Date.parse(x.time) < loadEnd)) {
    t.true(e.drainMs > 0 && Date.parse(e.time) - e.drainMs >= loadStart, `pid ${e.pid} (${e.reason}): its drain ran while the load did`);
  }
  t.true(exits.length >= pids.length && exits.every((e) => e.planned), 'every worker\'s exit was planned: no crash');
  t.deepEqual(exits.filter((e) => e.forced !== false).map((e) => `pid ${e.pid} (${e.reason ?? 'stop'})`), [], 'no worker forced: each drained by itself');
  return { run, cannon, undici, agent, exits };
}
