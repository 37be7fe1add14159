// `nodesup history --json` against a real supervisor: the documented document, one series per slot
// that goes on across a recycle, with the recycle among its events; and the log never hears of samples.
import test from 'ava';
import { startCli, runCli, app, freePort } from '../helpers/cli.js';

test('nodesup history 0 --json: the slot\'s series spans a recycle, which is among its events', async (t) => {
  const run = startCli(t, [app('http.js'), '-w', '2', '--metrics', 'false', '--poll-interval', '300ms', '--name', 'hist'], { env: { PORT: String(await freePort()) } });
  const first = await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  const history = async (...args) => {
    const r = await runCli(['history', ...args, '--json'], { env: { NODESUP_RUN_DIR: run.runDir } });
    t.is(r.exitCode, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  // Samples of the first worker before the recycle.
  let before = await history('0');
  for (let i = 0; i < 100 && (before.slots[0]?.fine.t.length ?? 0) < 3; i++) {
    await run.waitForStatus(() => true, { what: 'a status' });
    before = await history('0');
  }
  t.true(before.slots[0].fine.t.length >= 3, 'the first worker\'s samples');
  const recycled = await runCli(['recycle', '0', 'hist'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(recycled.exitCode, 0, recycled.stderr);
  const spawn = run.events.find((e) => e.event === 'worker.spawn' && e.slot === 0 && e.cause === 'replace');
  t.truthy(spawn, 'a replacement was spawned');
  const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === first.pid, { what: 'the old worker gone' });
  const exitAt = Date.parse(exit.time);
  // The new worker's samples arrive on the same series.
  let doc = await history('0', 'hist');
  for (let i = 0; i < 50 && !doc.slots[0].fine.t.some((x) => x > exitAt + 600); i++) {
    await run.waitForStatus((s) => s.now > exitAt + 600, { what: 'time past the exit' });
    doc = await history('0', 'hist');
  }

  t.like(doc, { format: 1, name: 'hist', pollInterval: 300, series: ['rss', 'heapUsed', 'external', 'native', 'children', 'gcSharePoll', 'delayP99', 'gcShare'], deprecated: { gcShare: 'gcSharePoll' } });
  t.is(doc.slots.length, 1, 'only the slot asked for');
  const [s] = doc.slots;
  t.is(s.slot, 0);
  t.is(s.fine.stepMs, 300);
  for (const k of ['t', ...doc.series]) t.is(s.fine[k].length, s.fine.t.length, `${k} is aligned with t`);
  t.true(s.fine.rss.every((v) => v === null || v > 10 * 1024 * 1024), 'rss in bytes');
  const recycle = s.events.find((e) => e.event === 'worker.recycle');
  t.like(recycle, { pid: first.pid, reason: 'manual' });
  t.true(s.fine.t.some((x) => x < recycle.t) && s.fine.t.some((x) => x > exitAt), 'points before the recycle and after the old worker left, on one series');
  t.true(s.events.some((e) => e.event === 'worker.spawn' && e.pid === spawn.pid && e.cause === 'replace'));
  t.true(s.coarse.t.length >= 1 && s.coarse.stepMs === 30_000);

  const all = await history();
  t.deepEqual(all.slots.map((x) => x.slot), [0, 1], 'without a slot: every slot');
  t.false(run.lines.some((l) => l.includes('"sample"') || l.includes('"sample":')), 'the log never carries the per-poll samples');
});

test('nodesup history with a slot out of range: exit 2 and one line', async (t) => {
  const run = startCli(t, [app('http.js'), '-w', '1', '--metrics', 'false', '--poll-interval', '300ms', '--name', 'hist2'], { env: { PORT: String(await freePort()) } });
  await run.waitFor((e) => e.event === 'worker.ready', { what: 'ready' });
  const r = await runCli(['history', '5', '--json'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(r.exitCode, 2);
  t.regex(r.stderr.trim(), /^nodesup: slot: expected 0\.\.0, got 5$/);
});
