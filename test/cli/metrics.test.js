// The Prometheus endpoint of a live supervisor: per-slot series, probes, recycle counters, and the
// real exposition through promtool.
import test from 'ava';
import fs from 'node:fs';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { startCli, runCli, app, freePort, scratch, get } from '../helpers/cli.js';
import { testWith } from '../helpers/tools.js';

const PER_SLOT = ['rss_bytes', 'heap_used_bytes', 'heap_total_bytes', 'external_bytes', 'native_bytes', 'open_fds',
  'event_loop_utilization', 'event_loop_delay_p99_seconds', 'gc_seconds_total', 'uptime_seconds'].map((n) => `nodesup_worker_${n}`);

const value = (body, series) => {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

// Scrape until pred(body) holds: counters move when an event arrives, and scraping is how to see it.
async function scrapeUntil(url, pred, what, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const { body } = await get(url);
    if (pred(body)) return body;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last scrape:\n${body.split('\n').filter((l) => l.startsWith('nodesup_recycle')).join('\n')}`);
    await delay(100);
  }
}

test('a live supervisor: series for every slot, no pid label, probes, recycle counters', async (t) => {
  const mport = await freePort();
  const run = startCli(t, [app('http.js'), '-w', '2', '--metrics', `127.0.0.1:${mport}`, '--poll-interval', '250ms'], { env: { PORT: String(await freePort()) } });
  const base = `http://127.0.0.1:${mport}`;
  const ready = await Promise.all([0, 1].map((slot) => run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` })));
  t.is((await get(`${base}/healthz`)).status, 200);
  t.is((await get(`${base}/readyz`)).status, 200, 'ready once a worker serves');
  // Utilization is a difference between two polls: wait until every slot has had its second one.
  // The delay percentiles need a timer sample in the poll's interval too (a loaded machine may not have one yet).
  await run.waitForStatus((s) => s.slots.every((r) => r.last?.elu != null && r.last?.treeRss > 0 && r.last?.delayP99 != null), { what: 'every slot sampled twice, with its loop delay' });

  const res = await fetch(`${base}/metrics`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const body = await res.text();
  for (const name of PER_SLOT) {
    for (const slot of ['0', '1']) {
      const v = value(body, `${name}{slot="${slot}"}`);
      t.true(Number.isFinite(v) && v >= 0, `${name}{slot="${slot}"} = ${v}`);
    }
  }
  t.true(value(body, 'nodesup_worker_rss_bytes{slot="0"}') > 1024 * 1024, 'a real RSS, in bytes');
  t.false(/pid="/.test(body), 'no pid label anywhere');
  for (const { pid } of ready) t.false(body.includes(`"${pid}"`), `pid ${pid} appears in no label`);
  t.is(value(body, 'nodesup_workers{state="ready"}'), 2);
  t.is(value(body, 'nodesup_recycles_total{reason="manual",forced="false"}'), 0);
  t.true(body.includes('nodesup_primary_process_resident_memory_bytes'), "the primary's own metrics");

  const r = await runCli(['recycle', '0'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(r.exitCode, 0, r.stderr);
  // Counted when the old worker is gone, from its worker.exit event.
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === ready[0].pid, { what: 'the recycled worker gone' });
  const after = await scrapeUntil(`${base}/metrics`, (b) => value(b, 'nodesup_recycles_total{reason="manual",forced="false"}') === 1, 'the manual recycle counted');
  t.true(value(after, 'nodesup_recycle_duration_seconds_count') >= 1);
  t.true(value(after, 'nodesup_recycle_duration_seconds_sum') > 0);
  t.is(value(after, 'nodesup_recycles_total{reason="reload",forced="false"}'), 0, 'only the reason that happened');
  t.false(/pid="/.test(after));
});

testWith('promtool')('the live exposition after a recycle passes promtool check metrics', async (t) => {
  const mport = await freePort();
  const run = startCli(t, [app('http.js'), '-w', '1', '--metrics', `127.0.0.1:${mport}`, '--poll-interval', '250ms'], { env: { PORT: String(await freePort()) } });
  const { pid } = await run.waitFor((e) => e.event === 'worker.ready', { what: 'ready' });
  t.is((await runCli(['recycle', '0'], { env: { NODESUP_RUN_DIR: run.runDir } })).exitCode, 0);
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === pid, { what: 'the recycled worker gone' });
  // The real exposition, as Prometheus would scrape it, with a recycle's histogram filled in.
  const body = await scrapeUntil(`http://127.0.0.1:${mport}/metrics`, (b) => value(b, 'nodesup_recycle_duration_seconds_count') >= 1, 'the recycle counted');
  const check = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
  t.is(check.status, 0, `promtool: ${check.stdout}${check.stderr}`);
});

test('metrics on a port already in use: exit 1 with one line, no worker started, no socket left', async (t) => {
  const blocker = net.createServer();
  await new Promise((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => blocker.close());
  const { port } = blocker.address();
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

  const r = await runCli(['start', app('http.js'), '-w', '1', '--name', 'busy', '--metrics', `127.0.0.1:${port}`],
    { env: { NODESUP_RUN_DIR: dir, PORT: String(await freePort()) } });
  // README, "Errors": a bind failure is a runtime failure (1), not a usage error (2).
  t.is(r.exitCode, 1);
  const lines = r.stderr.trim().split('\n');
  t.is(lines.length, 1, r.stderr);
  t.regex(lines[0], new RegExp(`^nodesup: metrics: cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`));
  t.false(r.stdout.includes('worker.spawn'), 'no worker was forked');
  t.false(r.stdout.includes('supervisor.start'));
  t.deepEqual(fs.readdirSync(dir), [], 'the control socket it had claimed is gone again');
});
