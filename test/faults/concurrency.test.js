// Requests that overlap: recycles while a recycle runs, the same slot twice, a stop during a
// reload, two stops at once. Each completes once, in turn, and leaves nothing running.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, waitGone, scratch, get, workersOf } from '../helpers/cli.js';
import { request } from '../../src/control/client.js';
import { faultApp, writeConfig, control, allPids, exited, within, signal, start } from './_helpers.js';

// slow-drain.js holds each drain for DRAIN_MS, so a recycle is still running when the next request comes.
async function startSlow(t, workers, { drainMs = 1500, name } = {}) {
  const port = await freePort();
  const markerDir = scratch();
  t.teardown(() => fs.rmSync(markerDir, { recursive: true, force: true }));
  const slowStart = path.join(markerDir, 'slow-start');
  const hold = path.join(markerDir, 'hold');
  const cfg = writeConfig(t, { recycle: { maxConcurrent: 1, killTimeout: '60s' } });
  const run = start(t, [faultApp('slow-drain.js'), '-w', String(workers), '--metrics', 'false', '-c', cfg, ...(name ? ['--name', name] : [])],
    { env: { PORT: String(port), DRAIN_MS: String(drainMs), SLOW_START_MARKER: slowStart, HOLD_MARKER: hold } });
  const pids = [];
  for (let slot = 0; slot < workers; slot++) {
    pids.push((await run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` })).pid);
  }
  // From now on a new worker takes 8 s to listen: a window in which a replacement is still starting.
  const slowStarts = () => fs.writeFileSync(slowStart, '');
  // A request that holds its worker's drain open until release(): resolves with the response body.
  const holdDrain = async () => {
    fs.writeFileSync(hold, '');
    const body = get(`http://127.0.0.1:${port}/wait`).then((r) => r.body, (err) => `failed: ${err.cause?.code ?? err.message}`);
    const { pid } = await run.waitFor((e) => e.fixture === 'waiting', { what: 'the held request in a worker' });
    const slot = run.events.find((e) => e.event === 'worker.ready' && e.pid === pid).slot;
    return { body, pid, slot, release: () => fs.rmSync(hold, { force: true }) };
  };
  return { run, port, pids, slowStarts, holdDrain };
}

// [index of worker.recycle, index of the old worker's exit] for every recycle in the log.
function recycleSpans(run) {
  return run.events.flatMap((e, i) => (e.event === 'worker.recycle'
    ? [{ slot: e.slot, pid: e.pid, from: i, to: run.events.findIndex((x) => x.event === 'worker.exit' && x.pid === e.pid) }]
    : []));
}

// A recycle through the control socket, as `nodesup recycle <slot>` sends it.
const recycle = (run, slot) => request({ dir: run.runDir, op: 'recycle', args: { slot }, timeoutMs: 120_000 });

// Holds the recycle of the slot whose worker has a request in flight: it stays in progress until
// release(), whatever the machine's speed, so requests sent meanwhile certainly overlap it.
async function heldRecycle(t, run, holdDrain) {
  const held = await holdDrain();
  const first = recycle(run, held.slot);
  await run.waitForStatus((s) => workersOf(s).some((w) => w.pid === held.pid && w.state === 'draining'), { what: 'the first recycle draining', timeout: 30_000 });
  return { held, first };
}

// Guards a race found here: waiting for room and taking it were an await apart, so every waiter
// woke when a recycle ended and two slots recycled at once despite maxConcurrent 1.
test('recycles requested while another is in progress (maxConcurrent 1): all complete, one slot at a time', async (t) => {
  const { run, pids, holdDrain } = await startSlow(t, 3);
  const { held, first } = await heldRecycle(t, run, holdDrain);
  const others = [0, 1, 2].filter((slot) => slot !== held.slot).map((slot) => recycle(run, slot));
  await run.status(); // a round trip after both requests were written: they wait in the primary now
  held.release();
  const results = await within(Promise.all([first, ...others]), 90_000, 'three recycles');
  t.deepEqual(results.map((r) => r.result), ['recycled', 'recycled', 'recycled']);
  t.regex(await held.body, /^waited \d+/, 'the request in flight was answered');
  t.deepEqual(await waitGone(pids), [], 'every old worker is gone');
  const spans = recycleSpans(run);
  t.deepEqual(spans.map((sp) => sp.slot).sort(), [0, 1, 2]);
  t.true(spans.every((sp) => sp.to > sp.from), 'every recycled worker exited');
  spans.sort((a, b) => a.from - b.from);
  for (let i = 1; i < spans.length; i++) {
    t.true(spans[i].from > spans[i - 1].to,
      `slot ${spans[i].slot} started recycling before slot ${spans[i - 1].slot}'s old worker was gone: two slots drained at once`);
  }
  signal(run, 'SIGTERM');
  t.is((await exited(run)).exitCode, 0);
  t.deepEqual(await waitGone(allPids(run)), []);
});

// A request for a slot already recycling joins that recycle; it once waited for it and then
// recycled the brand-new replacement too.
test('the same slot requested twice at once: one recycle', async (t) => {
  const { run, holdDrain } = await startSlow(t, 2);
  const { held, first } = await heldRecycle(t, run, holdDrain);
  const second = recycle(run, held.slot);
  await run.status();
  held.release();
  const results = await within(Promise.all([first, second]), 60_000, 'both recycle requests');
  t.log(results.map((r) => r.result));
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === held.pid, { what: 'the old worker gone' });
  t.is(run.count((e) => e.event === 'worker.recycle' && e.slot === held.slot), 1, `slot ${held.slot} recycled once`);
  t.is(run.count((e) => e.event === 'worker.spawn' && e.cause === 'replace'), 1, 'one replacement');
  t.is(run.count((e) => e.event === 'worker.recycle' && e.slot !== held.slot), 0, 'the other slot untouched');
  signal(run, 'SIGTERM');
  t.is((await exited(run)).exitCode, 0);
  t.deepEqual(await waitGone(allPids(run)), []);
});

// What must hold after any stop: exit 0, one supervisor.stop, every exit planned and graceful, no pid left.
async function assertCleanStop(t, run) {
  const done = await exited(run, 45_000);
  t.is(done.exitCode, 0, done.stderr);
  t.is(run.count((e) => e.event === 'supervisor.stop'), 1, 'exactly one supervisor.stop');
  const exits = run.events.filter((e) => e.event === 'worker.exit');
  t.true(exits.length > 0);
  for (const e of exits) t.like(e, { planned: true, forced: false }, `pid ${e.pid} exit`);
  t.deepEqual(await waitGone(allPids(run)), [], 'nothing left running');
}

const duringReload = [
  ['while the replacement starts', (e) => e.event === 'worker.spawn' && e.cause === 'replace', true],
  ['while the old worker drains', (e) => e.fixture === 'draining', false],
];
for (const [when, pred, slow] of duringReload) {
  for (const how of ['stop', 'SIGTERM']) {
    test(`${how} during a reload, ${when}: exit 0, one supervisor.stop, nothing left`, async (t) => {
      const { run, slowStarts } = await startSlow(t, 2, { drainMs: 3000 });
      if (slow) slowStarts();
      const reload = control(run, ['reload']);
      await run.waitFor(pred, { what: `the reload ${when}` });
      if (how === 'stop') {
        const r = await control(run, ['stop']);
        t.is(r.exitCode, 0, r.stderr);
      } else signal(run, 'SIGTERM');
      await assertCleanStop(t, run);
      const r = await reload;
      t.log(`reload: exit ${r.exitCode} ${r.stdout.replace(/\s+/g, ' ')}${r.stderr.trim()}`);
      if (slow) {
        const next = run.events.find((e) => e.event === 'worker.spawn' && e.cause === 'replace');
        t.false(run.events.some((e) => e.event === 'worker.ready' && e.pid === next.pid), 'the stop came while the replacement was starting');
      }
    });
  }
}

// A second stop while stopping is not a force: only a second *signal* is. A request held open
// keeps the stop in progress while both stops are asked; it must still be answered, and each
// command answers once the stop it joined is complete.
test('two `nodesup stop` at once: both answered, exit 0, one supervisor.stop, nothing left', async (t) => {
  const { run, holdDrain } = await startSlow(t, 2, { name: 'twostops' });
  const held = await holdDrain();
  const stops = Promise.all([control(run, ['stop']), control(run, ['stop'])]);
  await run.waitForStatus((s) => s.stopping, { what: 'the stop under way', timeout: 20_000 });
  held.release();
  const [a, b] = await within(stops, 30_000, 'two stop commands');
  t.is(a.exitCode, 0, a.stderr);
  t.is(b.exitCode, 0, b.stderr);
  await assertCleanStop(t, run);
  t.regex(await held.body, /^waited \d+/, 'the request in flight was answered');
});

// The control `stop` after a SIGTERM joins the drain, it does not force it.
test('SIGTERM and `nodesup stop` together: exit 0, one supervisor.stop, nothing left', async (t) => {
  const { run, holdDrain } = await startSlow(t, 2);
  const held = await holdDrain();
  signal(run, 'SIGTERM');
  await run.waitForStatus((s) => s.stopping, { what: 'the stop under way', timeout: 20_000 });
  const stop = control(run, ['stop']);
  held.release();
  const r = await stop;
  t.is(r.exitCode, 0, r.stderr);
  await assertCleanStop(t, run);
  t.regex(await held.body, /^waited \d+/, 'the request in flight was answered');
});

// A SIGTERM after a control `stop` joins the drain: a preStop hook running `nodesup stop`
// followed by the kubelet's SIGTERM must not drop in-flight requests.
test('`nodesup stop` then SIGTERM (a preStop hook, then the kubelet): exit 0, one supervisor.stop, nothing left', async (t) => {
  const { run, holdDrain } = await startSlow(t, 2);
  const held = await holdDrain();
  // `nodesup stop` answers once the stop is complete: the SIGTERM comes while it waits.
  const stop = control(run, ['stop']);
  await run.waitForStatus((s) => s.stopping, { what: 'the stop under way', timeout: 20_000 });
  signal(run, 'SIGTERM');
  held.release();
  const r = await stop;
  t.is(r.exitCode, 0, r.stderr);
  await assertCleanStop(t, run);
  t.regex(await held.body, /^waited \d+/, 'the request in flight was answered');
});
