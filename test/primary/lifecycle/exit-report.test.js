// Exit reporting in-process: what worker.exit says of planned, crashed and forced exits, and the
// OOM killer told from the cgroup's oom_kill counter (read through a scripted function).
import test from 'ava';
import { ExitReport } from '../../../src/primary/lifecycle/exit-report.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { ADVICE, EVENTS, REASONS } from '../../../src/constants.js';
import { messageFor } from '../../../src/report/words.js';

const MiB = 1024 * 1024;
const CONFIG = { workers: 2, limits: { rss: 300 * MiB } };

function world(counts) {
  let clock = 10_000;
  const events = [];
  const reads = [...counts];
  const exits = new ExitReport({ report: (level, fields, msg) => events.push({ level, ...fields, msg }), readOomKills: () => reads.shift() ?? null, cgroupLimit: 1024 * MiB, now: () => clock })
    .configure(CONFIG);
  return { exits, events, advance: (ms) => { clock += ms; } };
}

const worker = (o = {}) => ({
  slot: 0, pid: 42, retiring: null, drainStartedAt: null, forced: false, notReady: false, window: new SampleWindow({ maxAgeMs: 60_000 }), ...o,
});

test('a recycle\'s exit carries its reason and how long the recycle took; a stop\'s does not', (t) => {
  const w = world([0, 0, 0]);
  t.true(w.exits.exited(worker({ retiring: { reason: REASONS.RSS, decidedAt: 9000 }, drainStartedAt: 9500 }), { code: 0, signal: null }));
  t.like(w.events[0], { level: 'info', event: EVENTS.WORKER_EXIT, planned: true, forced: false, reason: REASONS.RSS, recycleMs: 1000, drainMs: 500 });
  w.exits.exited(worker({ retiring: { reason: 'stop', decidedAt: 9000 }, drainStartedAt: 9500 }), { code: 0, signal: null });
  t.false('reason' in w.events[1]);
});

test('a crash is unplanned and a warning; a forced exit says what held the worker when it is known', (t) => {
  const w = world([0, 0, 0]);
  t.false(w.exits.exited(worker(), { code: 1, signal: null }));
  t.like(w.events[0], { level: 'warn', planned: false, code: 1 });
  const heldBy = { requests: [{ method: 'GET', path: '/socket.io/', ageMs: 9000 }], upgraded: 0 };
  w.exits.exited(worker({ retiring: { reason: REASONS.RELOAD, decidedAt: 0 }, drainStartedAt: 0, forced: true, heldBy }), { code: null, signal: 'SIGTERM' });
  t.deepEqual(w.events[1].heldBy, heldBy);
});

test('a drained worker that died on its own mid-drain is a warning saying so; a clean or forced drain is not', (t) => {
  const w = world([0, 0, 0, 0]);
  const drained = (o) => worker({ retiring: { reason: REASONS.LEAK, decidedAt: 9000 }, drainStartedAt: 9500, ...o });
  t.true(w.exits.exited(drained(), { code: 1, signal: null }), 'still planned');
  t.like(w.events[0], { level: 'warn', planned: true, crashedInDrain: true, code: 1 });
  t.regex(messageFor(w.events[0]), /died while draining/);
  w.exits.exited(drained(), { code: 0, signal: null });
  t.like(w.events[1], { level: 'info' });
  t.false('crashedInDrain' in w.events[1]);
  w.exits.exited(drained({ forced: true }), { code: null, signal: 'SIGTERM' });
  t.false('crashedInDrain' in w.events[2], 'killed at killTimeout: forced, not a crash');
});

test('a SIGKILL we did not send while the oom_kill count rose is the OOM killer, with advice; our own SIGKILL is not', (t) => {
  const w = world([3, 4, 4, 5]);
  const h = worker();
  h.window.push({ t: 1, rss: 400 * MiB, treeRss: 410 * MiB });
  w.exits.exited(h, { code: null, signal: 'SIGKILL' });
  t.true(w.events[0].oomKill);
  t.like(w.events[1], { event: EVENTS.ADVICE, code: ADVICE.OOM_KILL, slot: 0 });
  t.regex(messageFor(w.events[1]), /slot 0 was killed by the kernel's OOM killer at 410 MiB/, 'worded from its facts');
  w.exits.exited(worker(), { code: null, signal: 'SIGKILL' });
  t.false('oomKill' in w.events[2], 'no new OOM kill since the last one counted');
  w.exits.exited(worker({ forced: true }), { code: null, signal: 'SIGKILL' });
  t.false('oomKill' in w.events[3], 'a kill we sent (forced) is ours, whatever the counter did');
});

test('where the counter cannot be read, no exit is called an OOM kill', (t) => {
  const w = world([null, null]);
  w.exits.exited(worker(), { code: null, signal: 'SIGKILL' });
  t.false('oomKill' in w.events[0]);
});
