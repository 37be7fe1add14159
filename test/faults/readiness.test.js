// A replacement that never becomes ready: the recycle fails loudly after readyTimeout, the old
// worker keeps serving, the stuck replacement is killed, and the slot can be recycled again later.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, scratch, waitGone, alive, get } from '../helpers/cli.js';
import { faultApp, writeConfig, control, allPids, exited, signal, start } from './_helpers.js';

for (const stuck of ['idle', 'spin']) {
  test(`a replacement that never becomes ready (${stuck}): recycle.failed, the old worker keeps serving, the stuck one is killed`, async (t) => {
    const port = await freePort();
    const dir = scratch();
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const marker = path.join(dir, 'hang');
    // Long enough for a healthy replacement to be ready on a loaded 2-core machine (the second
    // recycle below must go through): at 2 s it once timed out there with two test runs at once.
    const cfg = writeConfig(t, { recycle: { readyTimeout: '6s', killTimeout: '2s' } });
    const run = start(t, [faultApp('hang-after-marker.js'), '-w', '1', '--metrics', 'false', '-c', cfg],
      { env: { PORT: String(port), HANG_MARKER: marker, STUCK: stuck } });
    const ready = await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'the first worker ready' });
    const old = ready.pid;
    t.is((await get(`http://127.0.0.1:${port}/`)).body, `ok ${old}\n`);

    fs.writeFileSync(marker, '');
    const before = run.events.length;
    const r = await control(run, ['recycle', '0', '--json']);
    t.is(r.exitCode, 1, `the CLI exits 1 when the recycle did not happen: ${r.stderr}`);
    t.is(JSON.parse(r.stdout).result, 'failed', 'the CLI is told the recycle failed');

    const spawn = await run.waitFor((e) => e.event === 'worker.spawn' && e.cause === 'replace', { what: 'the replacement spawn' });
    const failed = await run.waitFor((e) => e.event === 'recycle.failed', { what: 'recycle.failed' });
    t.is(failed.slot, 0);
    t.is(failed.pid, old);
    t.is(failed.replacementPid, spawn.pid);
    t.is(failed.readyTimeoutMs, 6000);
    await run.waitFor((e) => e.event === 'worker.exit' && e.pid === spawn.pid, { what: 'the stuck replacement exit' });
    t.deepEqual(await waitGone([spawn.pid]), [], 'the stuck replacement is gone');

    t.true(alive(old), 'the old worker was never touched');
    t.is((await get(`http://127.0.0.1:${port}/`)).body, `ok ${old}\n`, 'and still serves');
    const snap = await run.status();
    t.is(snap.slots.filter((s) => s.pid !== null).length, 1, 'one worker in the slot, no leftover row');
    t.like(snap.slots[0], { pid: old, state: 'ready', current: true });
    const after = run.events.slice(before);
    t.false(after.some((e) => e.event === 'worker.exit' && e.pid === old), 'the old worker did not exit');
    t.false(after.some((e) => e.event === 'worker.restart'), 'a failed replacement is not a crash');

    // The slot is not wedged: once replacements can start again, the same recycle goes through.
    fs.rmSync(marker);
    const again = await control(run, ['recycle', '0', '--json']);
    t.is(again.exitCode, 0, again.stderr);
    t.is(JSON.parse(again.stdout).result, 'recycled');
    await run.waitFor((e) => e.event === 'worker.exit' && e.pid === old, { what: 'the old worker drained' });
    const body = (await get(`http://127.0.0.1:${port}/`)).body;
    t.not(body, `ok ${old}\n`, 'a new worker serves');

    signal(run, 'SIGTERM');
    t.is((await exited(run)).exitCode, 0);
    t.deepEqual(await waitGone(allPids(run)), [], 'nothing left running');
    t.is(run.count((e) => e.event === 'supervisor.stop'), 1);
  });
}
