// A young worker's rise is held as a possible warm-up until WARM_UP_MS past ready: decide() run
// tick by tick over simulated workers, its confirmation probes answered with the heap after a full
// GC. A linear warm-up that stops at 90 s and a cache that fills to its cap in 120 s rise exactly as
// a boot leak does until they stop: both stay silent; the boot leak is named by 180 s; a leak that
// starts once the worker has settled is named within 120 s of its start; a slot that has seen its
// worker leak does not hold the next one, until a reload.
import test from 'ava';
import { decide, newPolicyState } from '../../../src/core/policy/decide.js';
import { OUTCOME, absorb } from '../../../src/core/policy/outcomes.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { WARM_UP_MS } from '../../../src/core/leak/warm-up.js';
import { EVENTS, LEAK_KINDS } from '../../../src/constants.js';

const MiB = 1024 * 1024;
const T0 = 5_000_000;
const CONFIG = {
  workers: 1, pollInterval: 1000,
  limits: { rss: 2048 * MiB, heapUsed: null, native: null, totalRss: null, maxAge: null, maxRequests: null, jitter: 0, sustain: 0 },
  leak: { window: 5 * 60_000, minGrowth: MiB / 60, action: 'warn' },
  unresponsive: { timeout: 15_000 }, recycle: { maxConcurrent: 1, readyTimeout: 30_000, killTimeout: 10_000 },
};

/** A sample at age `s` seconds whose heap after GC is base + grown(s); a GC sawtooth on top of it. */
function sampleAt(t, grown) {
  const heap = 40 * MiB + grown;
  const saw = ((t / 1000) % 10) * 0.3 * MiB;
  return {
    t, agent: true, rss: heap + 60 * MiB, treeRss: heap + 60 * MiB, heapUsed: heap + saw, heapFloor: heap, heapTotal: heap + 8 * MiB,
    external: 2 * MiB, native: 50 * MiB, children: 0, childrenRss: 0, fds: 20, resources: {},
  };
}

/**
 * decide() every second for `seconds`, a worker (view fields in `worker`) ready at T0 whose heap
 * after GC grows by grown(s since ready); probes answered at once. The leak events, by age in s.
 */
function run(grown, { seconds = 300, worker = {}, state = newPolicyState(1), pointEveryS = 0 } = {}) {
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  const view = { id: 1, slot: 0, pid: 9, startedAt: T0 - 1000, readyAt: T0, lastReplyAt: T0, jitterDraw: 0, window, ...worker };
  const named = [];
  let lastPointS = -Infinity;
  for (let s = 0; s <= seconds; s++) {
    const now = T0 + s * 1000;
    window.push(sampleAt(now, grown(s)));
    view.lastReplyAt = now;
    const r = decide(state, [view], now, { config: CONFIG, totalLimit: null, cgroupLimit: null });
    state = r.state;
    for (const n of r.notices) if (n.fields.event === EVENTS.LEAK_WARNING) named.push({ s, kind: n.fields.kind });
    // A loaded machine: probes asked for are answered only pointEveryS apart.
    if (s - lastPointS < pointEveryS) continue;
    const points = r.probes.filter((p) => p.point).map((p) => ({
      type: OUTCOME.POINT, id: p.id, point: { at: now, heapAfter: 40 * MiB + grown(s), forced: true, pauseMs: 2, sites: null, externalAfter: p.buffers ? 2 * MiB : null, buffers: null },
    }));
    if (points.length) lastPointS = s;
    state = absorb(state, points);
  }
  return { named, state };
}

const perMin = (mb) => (s) => (mb * MiB * s) / 60;
const SHAPES = [
  // [title, heap grown by s seconds after ready, named within [from, to] s after ready, or null]
  ['a boot leak at 1 MiB/min', perMin(1), [WARM_UP_MS / 1000, 180]],
  ['a boot leak at 10 MiB/min', perMin(10), [WARM_UP_MS / 1000, 180]],
  ['a table built at 10 MiB/min for 90 s, then still', (s) => perMin(10)(Math.min(s, 90)), null],
  ['a table built at 15 MiB/min for 90 s, then still', (s) => perMin(15)(Math.min(s, 90)), null],
  ['a cache filled at 5 MiB/min to its cap in 120 s', (s) => perMin(5)(Math.min(s, 120)), null],
  ['a cache filled at 10 MiB/min to its cap in 120 s', (s) => perMin(10)(Math.min(s, 120)), null],
  ['a leak of 2 MiB/min that starts 180 s after ready', (s) => perMin(2)(Math.max(0, s - 180)), [180, 300]],
  ['flat', () => 0, null],
];
for (const [title, grown, within] of SHAPES) {
  test(`first worker of a slot: ${title} → ${within ? `named ${within[0]}–${within[1]} s after ready` : 'silent'}`, (t) => {
    const { named } = run(grown, { seconds: 400 });
    if (!within) {
      t.deepEqual(named, []);
      return;
    }
    t.true(named.length >= 1, 'named');
    t.is(named[0].kind, LEAK_KINDS.HEAP);
    t.true(named[0].s >= within[0] && named[0].s <= within[1], `named at ${named[0].s} s`);
  });
}

test('a loaded machine, points 35 s apart: a cache that filled until 120 s is not named at the hold\'s end on a point older than it', (t) => {
  const { named } = run((s) => perMin(10)(Math.min(s, 120)), { seconds: 400, pointEveryS: 35 });
  t.deepEqual(named, []);
});

test('a loaded machine, points 35 s apart: a boot leak is still named', (t) => {
  const { named } = run(perMin(3), { seconds: 400, pointEveryS: 35 });
  t.true(named.length >= 1 && named[0].s >= WARM_UP_MS / 1000, JSON.stringify(named));
});

test('a leak that starts once the worker settled is named within 120 s of its start', (t) => {
  const { named } = run((s) => perMin(2)(Math.max(0, s - 180)), { seconds: 400 });
  t.true(named[0].s - 180 <= 120, `named ${named[0].s - 180} s after it started`);
});

test('the slot saw its last worker leak: the next one is named before the warm-up hold ends', (t) => {
  const first = run(perMin(3), { seconds: 200 });
  t.is(first.state.slots[0].leaked.id, 1);
  const second = run(perMin(3), { seconds: 200, worker: { id: 2 }, state: first.state });
  t.true(second.named.length >= 1 && second.named[0].s < WARM_UP_MS / 1000, JSON.stringify(second.named));
});

test('a worker started by a reload runs new code: the slot forgets its leak, the hold is back', (t) => {
  const first = run(perMin(3), { seconds: 200 });
  const reloaded = run(perMin(3), { seconds: 200, worker: { id: 2, fromReload: true }, state: first.state });
  t.true(reloaded.named[0].s >= WARM_UP_MS / 1000, JSON.stringify(reloaded.named));
});

test('a worker replaced for memory teaches the slot as a leak does', (t) => {
  let state = absorb(newPolicyState(1), [{ type: OUTCOME.RECYCLED, slot: 0, id: 1, at: T0, reason: 'rss', kind: 'heap', bytesPerMin: 3 * MiB }]);
  t.like(state.slots[0].leaked, { id: 1 });
  ({ state } = { state });
  const next = run(perMin(3), { seconds: 200, worker: { id: 2 }, state });
  t.true(next.named[0].s < WARM_UP_MS / 1000, JSON.stringify(next.named));
});
