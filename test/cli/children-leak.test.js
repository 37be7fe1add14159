// Helper processes left running, end to end: a worker that starts a helper every 10 s and never
// ends it is named as a children leak with the helper's command once the process count has climbed
// for 90 s; its twin, which ends each helper after its job, gets no verdict in the same time. The
// default leak settings but a warm-up hold of 60 s, which ends before the climb is long enough, so
// the verdict comes from the climb, not the hold; the same leak named past the default hold (150 s)
// is test/cli/check.test.js's child-leak (bench/detection.js measures when). Beside them, a tree
// that grows fast is recycled as a children leak with the children's command, read from
// /proc/<pid>/cmdline by the agent.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, freePort, scratch, ROOT, writeConfig } from '../helpers/cli.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const corpus = (name) => path.join(ROOT, 'bench/corpus', `${name}.js`);

test('children left running are named with their command; the twin that ends them is not', async (t) => {
  t.timeout(5 * 60_000);
  const cfg = writeConfig(t, { workers: 1, metrics: false, leak: { warmUp: '60s' } }); // else the defaults
  const leak = startCli(t, [corpus('child-leak'), '-c', cfg, '--name', 'childleak'], { env: { PORT: String(await freePort()) } });
  const twin = startCli(t, [corpus('child-healthy'), '-c', cfg, '--name', 'childok'], { env: { PORT: String(await freePort()) } });
  const ready = await leak.waitFor((e) => e.event === 'worker.ready');
  await twin.waitFor((e) => e.event === 'worker.ready');
  const ev = await leak.waitFor((e) => e.event === 'leak.warning' && e.kind === 'children', { timeout: 240_000, what: 'the children leak named' });
  const sinceReady = (Date.parse(ev.time) - Date.parse(ready.time)) / 1000;
  t.log(`named ${Math.round(sinceReady)} s after ready: ${ev.msg}`);
  t.like(ev, { slot: 0, pid: ready.pid });
  t.regex(ev.commands?.[0]?.command ?? '', /\S*node -e const keep = Buffer\.alloc/, JSON.stringify(ev.commands));
  t.true(ev.processesPerMin >= 2, String(ev.processesPerMin));
  // Each helper is a node process holding 8 MiB: tens of MiB a minute, not GiB.
  t.true(ev.growthBytesPerSec > MiB / 60 && ev.growthBytesPerSec < GiB / 60, String(ev.growthBytesPerSec));
  t.regex(ev.msg, /left running: \S*node -e const keep/);
  t.is(twin.count((e) => e.event === 'leak.warning' || e.event === 'worker.recycle'), 0, 'the twin that ends its helpers got no verdict');
});

test('a children leak names what the children run', async (t) => {
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'app.mjs');
  // Two `sleep` processes a second, never reaped until the worker goes (its tree is killed then).
  fs.writeFileSync(file, `import http from 'node:http';
import { spawn } from 'node:child_process';
setInterval(() => spawn('sleep', ['120'], { stdio: 'ignore' }).on('error', () => {}), 500);
http.createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');
`);
  const cfg = writeConfig(t, { workers: 1, pollInterval: '250ms', metrics: false, leak: { window: '10s', minGrowth: '1mb/min' } });
  const run = startCli(t, [file, '-c', cfg], { env: { PORT: String(await freePort()) } });
  const ev = await run.waitFor((e) => e.event === 'worker.recycle' && e.kind === 'children', { timeout: 120_000, what: 'the children leak recycle' });
  t.like(ev, { reason: 'leak', kind: 'children' });
  t.like(ev.commands?.[0], { command: 'sleep 120' });
  t.true(ev.commands[0].count >= 10 && ev.commands[0].perMin >= 60, JSON.stringify(ev.commands));
});
