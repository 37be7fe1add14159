// The gate's verdict as a table: what the supervisor said during a run → the result, the exit
// status, the leaks by kind, and when the run was too short to say anything.
import test from 'ava';
import { verdictOf } from '../../src/check/verdict.js';
import { EVENTS } from '../../src/constants.js';
import { judgingTimes } from '../../src/check/judging-time.js';

const MiB = 1024 * 1024;
const T0 = 1_000_000;
const s = (sec) => T0 + sec * 1000;
const config = { leak: { window: 300_000, minGrowth: MiB / 60, warmUp: 150_000, action: 'recycle' }, pollInterval: 1000 };
const ready = (slot, at = 0) => ({ event: 'worker.ready', slot, pid: 100 + slot, time: s(at) });
const heapWarning = (slot, at, extra = {}) => ({
  event: 'leak.warning', slot, pid: 100 + slot, kind: 'heap', growthBytesPerSec: Math.round((9.3 * MiB) / 60), time: s(at),
  sites: [{ fn: 'send', file: '/app/node_modules/express/lib/response.js', line: 9, package: 'express@5.3.0', via: { file: '/app/server.js', line: 13 }, bytesPerMin: 9 * MiB, share: 0.9 }],
  ...extra,
});
const run = (events, o = {}) => verdictOf({ events, judgements: null, config, startedAt: s(0), endedAt: s(240), ...o });
const judgement = (slot, heapPerSec, leak = null, pointAt = null) => ({ id: slot + 1, slot, pid: 100 + slot, leak, points: 2, pointAt, judged: { trend: { heapPerSec, rssPerSec: null } } });

test('nothing named over a long enough run: pass, exit 0, every early kind judged', (t) => {
  const v = run([ready(0), ready(1)]);
  t.like(v, { result: 'pass', exitCode: 0, tooShort: false, suggestDurationS: null, ranS: 240, leaks: [], memory: [] });
  t.like(v.judged, { heap: true, external: true, handles: true, children: true, native: false });
  t.like(v.notes.find((n) => n.code === 'not-judged'), { kinds: ['native', 'rss'], needS: 600 });
});

test('a heap leak named in two slots is one leak, its slots, its fastest rate and the first time it was named', (t) => {
  const v = run([ready(0), ready(1), heapWarning(1, 168), heapWarning(0, 175, { growthBytesPerSec: 100 })]);
  t.like(v, { result: 'fail', exitCode: 1 });
  t.is(v.leaks.length, 1);
  t.like(v.leaks[0], { kind: 'heap', slots: [0, 1], namedAtS: 168, growthBytesPerSec: Math.round((9.3 * MiB) / 60), recycled: false });
  t.is(v.leaks[0].sites[0].package, 'express@5.3.0');
});

const kinds = [
  ['a leak recycle', { event: 'worker.recycle', reason: 'leak', kind: 'external', slot: 0, pid: 100, growthBytesPerSec: 5000 }, { kind: 'external', recycled: true }],
  ['a handles leak', { event: 'leak.warning', kind: 'handles', slot: 0, pid: 100, growthPerSec: 15, types: [{ type: 'Timeout', perSec: 5, count: 120 }] }, { kind: 'handles', growthPerSec: 15 }],
  ['a children leak', { event: 'leak.warning', kind: 'children', slot: 0, pid: 100, growthBytesPerSec: 40000, commands: [{ command: 'sleep 100', count: 6, perMin: 2 }] }, { kind: 'children' }],
  ['a native leak', { event: 'leak.warning', kind: 'native', slot: 0, pid: 100, growthBytesPerSec: 40000 }, { kind: 'native' }],
  ['a slot streak', { event: 'leak.warning', kind: 'heap', slot: 0, pid: 100, growthBytesPerSec: 40000, workersInRow: 4 }, { kind: 'heap', workersInRow: 4 }],
];
for (const [what, ev, expected] of kinds) {
  test(`${what} fails the gate`, (t) => {
    const v = run([ready(0), { ...ev, time: s(60) }]);
    t.like(v, { result: 'fail', exitCode: 1 });
    t.like(v.leaks[0], { ...expected, namedAtS: 60, slots: [0] });
  });
}

test('a memory limit that recycled a worker fails the gate; a full GC that brought it under does not', (t) => {
  const rss = { event: 'worker.recycle', reason: 'rss', slot: 0, pid: 100, value: 300 * MiB, limit: 256 * MiB, time: s(95) };
  t.like(run([ready(0), rss]), { result: 'fail', exitCode: 1, memory: [{ reason: 'rss', slot: 0, atS: 95, limit: 256 * MiB }] });
  const gc = { event: 'worker.gc', reason: 'rss', slot: 0, pid: 100, stillOver: false, time: s(95) };
  t.like(run([ready(0), gc]), { result: 'pass', exitCode: 0 });
  const oom = { event: 'worker.exit', slot: 0, pid: 100, planned: false, oomKill: true, signal: 'SIGKILL', time: s(99) };
  t.like(run([ready(0), oom]), { result: 'fail', memory: [{ reason: 'oom-kill', slot: 0, atS: 99 }] });
});

test('recycles that are not about memory do not fail it: max-age, manual', (t) => {
  const v = run([ready(0), { event: 'worker.recycle', reason: 'max-age', slot: 0, pid: 100, time: s(50) }, { event: 'worker.recycle', reason: 'manual', slot: 0, pid: 101, time: s(70) }]);
  t.like(v, { result: 'pass', exitCode: 0 });
});

test('the app or the load that could not run: error, exit 2, with the reason; nothing is judged', (t) => {
  const v = run([], { startedAt: null, failure: { what: 'app', reason: 'the app could not start: boom' } });
  t.like(v, { result: 'error', exitCode: 2, tooShort: false, ranS: 0, failure: { what: 'app' } });
  const load = run([ready(0)], { endedAt: s(3), failure: { what: 'load', reason: 'the load command exited with code 3' } });
  t.like(load, { result: 'error', exitCode: 2, tooShort: false });
});

test('a leak named before the load failed is still the finding: exit 1, the failure kept beside it', (t) => {
  const v = run([ready(0), heapWarning(0, 170)], { endedAt: s(200), failure: { what: 'load', reason: 'the load command exited with code 1' } });
  t.like(v, { result: 'fail', exitCode: 1, failure: { what: 'load' } });
});

const short = [
  // [run seconds, warmUp, too short?, suggested]
  [40, 150_000, true, 180],
  [179, 150_000, true, 180],
  [180, 150_000, false, null],
  // No warm-up hold: the slowest early verdict is the children's, a 90 s climb, and the margin.
  [40, 0, true, 130],
  [120, 60_000, true, 130],
  [130, 60_000, false, null],
];
for (const [ranS, warmUp, tooShort, suggest] of short) {
  test(`a run of ${ranS} s with leak.warmUp ${warmUp / 1000} s is ${tooShort ? '' : 'not '}too short`, (t) => {
    const v = run([ready(0)], { endedAt: s(ranS), config: { ...config, leak: { ...config.leak, warmUp } } });
    t.like(v, { tooShort, suggestDurationS: suggest, exitCode: 0, result: tooShort ? 'too-short' : 'pass' });
    if (tooShort) t.like(v.notes.find((n) => n.code === 'too-short'), { ranS, needS: suggest });
  });
}

test('a warm-up is not a leak: a run long enough, its heap flat at the end, passes', (t) => {
  const v = run([ready(0)], { judgements: [judgement(0, 0)] });
  t.like(v, { result: 'pass', tooShort: false });
});

test('a heap still being confirmed at the end is too short, never a guess: a confirmation more is suggested', (t) => {
  const v = run([ready(0), ready(1)], { endedAt: s(200), judgements: [judgement(0, 0), judgement(1, (2 * MiB) / 60, null, s(190))] });
  t.like(v, { result: 'too-short', exitCode: 0, tooShort: true, suggestDurationS: 280 });
  t.like(v.notes.find((n) => n.code === 'rising'), { slots: [1], suggestS: 280 });
  // Below half of leak.minGrowth no confirmation would even start: not a reason to run longer.
  t.like(run([ready(0)], { judgements: [judgement(0, (0.4 * MiB) / 60, null, s(235))] }), { result: 'pass' });
  // The polled floor rising with no point taken lately: no confirmation runs, the supervisor is not deciding.
  t.like(run([ready(0)], { judgements: [judgement(0, MiB / 60)] }), { result: 'pass' });
  t.like(run([ready(0)], { judgements: [judgement(0, MiB / 60, null, s(180))] }), { result: 'pass' });
  // A worker whose leak is known is not "rising without a verdict".
  t.like(run([ready(0)], { judgements: [judgement(0, MiB, { kind: 'heap' }, s(235))] }), { result: 'pass' });
});

test('the "named at" clock starts at the first worker ready, not at the load', (t) => {
  const v = verdictOf({ events: [ready(0, 0), heapWarning(0, 170)], judgements: null, config, startedAt: s(4), endedAt: s(240) });
  t.is(v.leaks[0].namedAtS, 170);
  t.is(v.ranS, 236);
});

test('a holder is kept from the leak event, or from a retainer analysis of its slot', (t) => {
  const holder = { bytes: 50e6, share: 0.9, count: 12004, type: 'IncomingMessage', path: ['(module) server.js', 'recentRequests', 'Array'], holder: { name: 'recentRequests', file: 'server.js', line: 11 } };
  t.deepEqual(run([ready(0), heapWarning(0, 170, { holder })]).leaks[0].holder, holder);
  // The analysis's list, best first: the best is the holder.
  t.deepEqual(run([ready(0), heapWarning(0, 170, { held: [holder, { holder: { name: 'other' } }] })]).leaks[0].holder, holder);
  const later = run([ready(0), heapWarning(0, 170), { event: EVENTS.WORKER_RETAINERS, slot: 0, pid: 100, kind: 'heap', held: 'recentRequests', time: s(180) }]);
  t.is(later.leaks[0].holder, 'recentRequests');
  const otherSlot = run([ready(0), heapWarning(0, 170), { event: EVENTS.WORKER_RETAINERS, slot: 3, held: 'x', time: s(180) }]);
  t.is(otherSlot.leaks[0].holder, null);
});

test('crashes after ready, a limit below the baseline and a failed replacement are notes, not verdicts', (t) => {
  const v = run([
    ready(0),
    { event: 'worker.exit', slot: 0, pid: 100, planned: false, code: 1, signal: null, time: s(30) },
    { event: 'limit.below-baseline', slot: 0, pid: 101, reason: 'rss', value: 2, limit: 1, time: s(40) },
    { event: 'recycle.failed', slot: 0, pid: 101, reason: 'rss', time: s(50) },
    { event: 'recycle.failed', slot: 0, pid: 101, reason: 'rss', cancelled: true, time: s(60) },
  ]);
  t.like(v, { result: 'pass', exitCode: 0 });
  t.deepEqual(v.notes.map((n) => n.code).filter((c) => c !== 'not-judged'), ['crash', 'below-baseline', 'recycle-failed']);
});

test('leak: false judges no leak: a pass that says only limits were checked', (t) => {
  const v = run([ready(0)], { endedAt: s(10), config: { ...config, leak: false } });
  t.like(v, { result: 'pass', exitCode: 0, tooShort: false, judgeAfterS: null });
  t.true(v.notes.some((n) => n.code === 'leak-off'));
});

test('judging times follow the config: leak.window for the window kinds, the warm-up for the early ones', (t) => {
  t.like(judgingTimes(config), { heap: 180, external: 180, children: 180, handles: 70, native: 600, rss: 600 });
  t.like(judgingTimes({ ...config, leak: { ...config.leak, window: 30_000 } }), { heap: 180, native: 300 });
  t.like(judgingTimes({ ...config, leak: { ...config.leak, window: 600_000, warmUp: 0 } }), { heap: 110, children: 130, native: 1200 });
  // A config from before leak.warmUp existed holds a rise for its default.
  t.like(judgingTimes({ ...config, leak: { window: 300_000, minGrowth: 1 } }), { heap: 180 });
});
