// A Buffer leak among Buffer churn, end to end at the default leak window and minGrowth: named as
// an external leak with the function that keeps the Buffers, while the function that churns 4× as
// many Buffer bytes is not named, and no site is nodesup's own. The churn alone, started beside
// it, gets no verdict in the same time. The warm-up hold is 60 s, over before the confirmation's
// four points are (~80 s): a leak named as one that starts after the default hold would be. A leak
// from boot named past the default hold: test/cli/check.test.js's child-leak.
import test from 'ava';
import path from 'node:path';
import { startCli, freePort, ROOT, writeConfig } from '../helpers/cli.js';

const MiB = 1024 * 1024;
const corpus = (name) => path.join(ROOT, 'bench/corpus', `${name}.js`);
const OURS = path.join(ROOT, 'src');

test('a 1 MiB/min Buffer leak is named with holdUpload; parseChunk, churning 4×, is not; the churn alone stays silent', async (t) => {
  t.timeout(4 * 60_000);
  const cfg = writeConfig(t, { workers: 1, metrics: false, leak: { warmUp: '60s' } }); // else the defaults (5m window, 1mb/min)
  const leak = startCli(t, [corpus('buffer-churn-leak'), '-c', cfg, '--name', 'bufleak'], { env: { PORT: String(await freePort()), LEAK_MB_PER_MIN: '1' } });
  const churn = startCli(t, [corpus('buffer-churn'), '-c', cfg, '--name', 'bufchurn'], { env: { PORT: String(await freePort()) } });
  const ready = await leak.waitFor((e) => e.event === 'worker.ready');
  await churn.waitFor((e) => e.event === 'worker.ready');
  const ev = await leak.waitFor((e) => e.event === 'leak.warning', { timeout: 240_000, what: 'the Buffer leak named' });
  t.like(ev, { slot: 0, pid: ready.pid, kind: 'external' });
  const sinceReady = Date.parse(ev.time) - Date.parse(ready.time);
  t.log(`named ${Math.round(sinceReady / 1000)} s after ready: ${ev.msg}`);
  t.true(ev.growthBytesPerSec >= 0.9 * (MiB / 60) && ev.growthBytesPerSec <= 2 * (MiB / 60), String(ev.growthBytesPerSec));
  t.like(ev.sites[0], { fn: 'holdUpload', file: corpus('buffer-churn-leak'), line: 13 });
  t.false(ev.sites.some((s) => s.fn === 'parseChunk'), JSON.stringify(ev.sites));
  t.false(ev.sites.some((s) => s.file.startsWith(OURS) || s.file.startsWith('node:')), JSON.stringify(ev.sites));
  t.true(ev.confirm.points >= 4, JSON.stringify(ev.confirm));
  // Judged on points after forced GCs, not on polled external memory.
  t.is(leak.count((e) => e.event === 'worker.recycle'), 0, 'a leak found early is warned of until a window has passed');
  t.is(churn.count((e) => e.event === 'leak.warning' || e.event === 'worker.recycle'), 0, 'the churn alone, run as long, got no verdict');
});
