// Helper processes left running, end to end at the default leak settings: a worker that starts a
// helper every 10 s and never ends it is named as a children leak with the helper's command once
// the warm-up hold is over (bench/detection.js measures when); its twin, which ends each helper
// after its job, gets no verdict in the same time.
import test from 'ava';
import path from 'node:path';
import { startCli, freePort, ROOT, writeConfig } from '../helpers/cli.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const corpus = (name) => path.join(ROOT, 'bench/corpus', `${name}.js`);

test('children left running are named with their command; the twin that ends them is not', async (t) => {
  t.timeout(5 * 60_000);
  const cfg = writeConfig(t, { workers: 1, metrics: false }); // leak: the defaults
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
