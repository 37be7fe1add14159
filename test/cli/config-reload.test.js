// SIGHUP re-reads supervisor.config.js: a broken file changes nothing, limits apply live, the app's
// settings roll the workers, and the worker count grows or shrinks. Every reload is an event, and
// `status --json` shows the active config.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, app, freePort, scratch, waitGone } from '../helpers/cli.js';

const MiB = 1024 * 1024;

function configFile(t) {
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'supervisor.config.mjs');
  return { file, write: (obj) => fs.writeFileSync(file, `export default ${JSON.stringify(obj)};\n`), writeRaw: (text) => fs.writeFileSync(file, text) };
}

const BASE = { script: app('http.js'), workers: 2, pollInterval: '250ms', metrics: false, limits: { rss: '1gb' } };

async function started(t, cfg, extra = {}) {
  const port = await freePort();
  const run = startCli(t, ['-c', cfg.file], { env: { PORT: String(port), ...extra } });
  for (const slot of [0, 1]) await run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` });
  return run;
}

const after = (run, i) => run.events.slice(i);

test('a broken file changes nothing: config.invalid in one line, no worker goes down, the running config stays', async (t) => {
  const cfg = configFile(t);
  cfg.write(BASE);
  const run = await started(t, cfg);
  const mark = run.events.length;
  cfg.writeRaw('export default { limits: { rss: ');
  process.kill(run.child.pid, 'SIGHUP');
  const bad = await run.waitFor((e) => e.event === 'config.invalid', { what: 'config.invalid' });
  t.is(bad.file, cfg.file);
  t.false(bad.error.includes('\n'), 'one line');
  cfg.write({ ...BASE, limits: { rss: 'lots' } });
  process.kill(run.child.pid, 'SIGHUP');
  await run.waitFor((e, i) => e.event === 'config.invalid' && e.error.includes('limits.rss'), { what: 'config.invalid naming the key' });
  t.deepEqual(after(run, mark).filter((e) => ['worker.exit', 'worker.spawn', 'worker.recycle'].includes(e.event)), []);
  const snap = await run.status();
  t.is(snap.config.limits.rss, 1024 * MiB, 'the running config stays');
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('limits apply live at the next tick, no worker restarted: a new maxAge recycles with reason max-age', async (t) => {
  const cfg = configFile(t);
  cfg.write(BASE);
  const run = await started(t, cfg);
  const mark = run.events.length;
  cfg.write({ ...BASE, limits: { rss: '900mb', maxAge: '2s', jitter: 0 }, pollInterval: '200ms' });
  const sentAt = Date.now();
  process.kill(run.child.pid, 'SIGHUP');
  const reload = await run.waitFor((e) => e.event === 'config.reload', { what: 'config.reload' });
  t.like(reload, { applied: 'live' });
  t.log(`SIGHUP → config.reload (the new limits in force from the next tick): ${Date.parse(reload.time) - sentAt} ms`);
  t.deepEqual([...reload.changed].sort(), ['limits', 'pollInterval']);
  const snap = await run.status();
  t.is(snap.config.limits.rss, 900 * MiB);
  t.is(snap.pollInterval, 200);
  const recycle = await run.waitFor((e) => e.event === 'worker.recycle' && e.reason === 'max-age', { what: 'a recycle under the new maxAge' });
  t.is(recycle.limit, 2000);
  const rolled = after(run, mark).filter((e) => e.event === 'worker.recycle' && e.reason === 'reload');
  t.deepEqual(rolled, [], 'no rolling restart for a limits change');
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('an env change rolls the workers one slot at a time; new workers see the new env', async (t) => {
  const cfg = configFile(t);
  cfg.write({ ...BASE, env: { RELOAD_MARK: 'a' } });
  const run = await started(t, cfg);
  const old = run.events.filter((e) => e.event === 'worker.ready').map((e) => e.pid);
  cfg.write({ ...BASE, env: { RELOAD_MARK: 'b' } });
  process.kill(run.child.pid, 'SIGHUP');
  const reload = await run.waitFor((e) => e.event === 'config.reload', { what: 'config.reload' });
  t.like(reload, { applied: 'rolling', changed: ['env'] });
  for (const pid of old) await run.waitFor((e) => e.event === 'worker.exit' && e.pid === pid, { what: `old worker ${pid} drained` });
  const recycles = run.events.filter((e) => e.event === 'worker.recycle' && e.reason === 'reload');
  t.is(recycles.length, 2);
  const fresh = (await run.status()).slots.filter((r) => r.current).map((r) => r.pid);
  t.is(fresh.length, 2);
  for (const pid of fresh) {
    t.false(old.includes(pid));
    t.true(fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes('RELOAD_MARK=b'));
  }
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('workers 2 → 3 adds a slot; 3 → 1 drains the highest slots and forgets them', async (t) => {
  const cfg = configFile(t);
  cfg.write(BASE);
  const run = await started(t, cfg);
  cfg.write({ ...BASE, workers: 3 });
  process.kill(run.child.pid, 'SIGHUP');
  const up = await run.waitFor((e) => e.event === 'config.reload', { what: 'config.reload' });
  t.deepEqual(up.workers, { from: 2, to: 3 });
  t.is(up.applied, 'live');
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 2, { what: 'slot 2 ready' });
  const before = (await run.status()).slots.filter((r) => r.slot > 0).map((r) => r.pid);

  cfg.write({ ...BASE, workers: 1 });
  process.kill(run.child.pid, 'SIGHUP');
  await run.waitFor((e) => e.event === 'config.reload' && e.workers?.to === 1, { what: 'config.reload to 1' });
  t.deepEqual(await waitGone(before), [], 'slots 1 and 2 drained');
  const snap = await run.waitForStatus((s) => s.slots.length === 1, { what: 'one slot left' });
  t.is(snap.workers, 1);
  t.is(snap.slots[0].state, 'ready');
  t.true(run.events.filter((e) => e.event === 'worker.exit' && before.includes(e.pid)).every((e) => e.planned && !e.forced));
  t.is(run.count((e) => e.event === 'worker.restart'), 0, 'a drained slot is not restarted');
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});
