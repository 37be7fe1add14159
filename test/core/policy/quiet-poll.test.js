import test from 'ava';
import { isQuiet, pollDue, QUIET_EVERY, QUIET_FLEET } from '../../../src/core/policy/quiet-poll.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { newWorkerPolicy } from '../../../src/core/policy/outcomes.js';

const MiB = 1024 * 1024;
// Two polls of an idle worker of the 128-worker bench (bench/apps/idle.js), a second apart.
const IDLE = { rss: 47.2 * MiB, heapUsed: 5.1 * MiB, external: 1.4 * MiB, elu: 0.0008, requests: 0, handles: 3, children: 0 };

const windowOf = (a, b) => {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  w.push({ t: 1000, ...a });
  if (b) w.push({ t: 2000, ...b });
  return w;
};

for (const [what, second, policy, want] of [
  ['idle, memory a few KiB apart', { rss: IDLE.rss + 40_960, heapUsed: IDLE.heapUsed + 8192 }, null, true],
  ['idle, a fresh policy record', {}, newWorkerPolicy(), true],
  ['a request served', { requests: 1 }, null, false],
  ['the loop busy without requests (a timer at work)', { elu: 0.2 }, null, false],
  ['no loop measure (the agent did not answer)', { elu: null }, null, false],
  ['a handle opened', { handles: 4 }, null, false],
  ['a child process started', { children: 1 }, null, false],
  ['RSS moved 2 MiB', { rss: IDLE.rss + 2 * MiB }, null, false],
  ['RSS fell 2 MiB (memory returned: still a change)', { rss: IDLE.rss - 2 * MiB }, null, false],
  ['the heap grew 1.5 MiB', { heapUsed: IDLE.heapUsed + 1.5 * MiB }, null, false],
  ['Buffers grew 1.5 MiB', { external: IDLE.external + 1.5 * MiB }, null, false],
  ['over a limit', {}, { ...newWorkerPolicy(), firstOverAt: 1000 }, false],
  ['a leak suspicion being confirmed', {}, { ...newWorkerPolicy(), confirm: { ...newWorkerPolicy().confirm, since: 1000 } }, false],
  ['its sites being sampled', {}, { ...newWorkerPolicy(), profiling: true }, false],
]) {
  test(`quiet? ${what}: ${want}`, (t) => {
    t.is(isQuiet(windowOf(IDLE, { ...IDLE, ...second }), policy ?? undefined), want);
  });
}

test('one sample is not enough to call a worker quiet', (t) => {
  t.false(isQuiet(windowOf(IDLE), undefined));
});

test('a quiet worker in a large fleet skips QUIET_EVERY - 1 polls, then is asked; a small fleet is asked every poll', (t) => {
  let skipped = 0;
  const asks = [];
  for (let i = 0; i < 2 * QUIET_EVERY; i++) {
    const due = pollDue({ quiet: true, skipped, slots: 128 });
    asks.push(due.ask);
    skipped = due.skipped;
  }
  t.deepEqual(asks, [false, false, false, true, false, false, false, true]);
  t.deepEqual(pollDue({ quiet: false, skipped: 2, slots: 128 }), { ask: true, skipped: 0 }, 'no longer quiet: asked at once');
  t.deepEqual(pollDue({ quiet: true, skipped: 0, slots: QUIET_FLEET }), { ask: true, skipped: 0 });
  // Quietness is asked for (null) only where the count and the fleet's size do not decide.
  t.is(pollDue({ skipped: 0, slots: 128 }), null);
  t.is(pollDue({ skipped: QUIET_EVERY - 2, slots: 128 }), null);
  t.deepEqual(pollDue({ skipped: QUIET_EVERY - 1, slots: 128 }), { ask: true, skipped: 0 });
  t.deepEqual(pollDue({ skipped: 0, slots: QUIET_FLEET }), { ask: true, skipped: 0 });
});
