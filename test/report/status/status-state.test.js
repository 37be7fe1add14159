// The status screen's rules as tables: inputs in, state and effects out, on a clock of numbers.
import test from 'ava';
import { initialState, reduce, keysOf, MESSAGE_MS } from '../../../src/report/status/status-state.js';
import { RANGES, CHART_SERIES } from '../../../src/report/status/status-detail.js';
import { NodesupError } from '../../../src/errors.js';
import { snapshot } from '../fake-snapshot.js';

const T0 = 1_000_000;

// Frozen all the way down: a reducer that wrote into its input state would throw here.
function deepFreeze(o) {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/** Feed inputs in order; each step's effects and state are kept. */
function drive(inputs, opts = {}) {
  let state = deepFreeze(initialState({ now: T0, width: 80, height: 24, ...opts }));
  const steps = [];
  for (const input of inputs) {
    const r = reduce(state, input);
    steps.push(r);
    state = deepFreeze(r.state);
  }
  return { state, steps, effects: steps.at(-1)?.effects ?? [] };
}
const types = (effects) => effects.map((e) => e.type);
const tick = (now) => ({ type: 'tick', now });
const snap = (now, n = 3) => ({ type: 'snapshot', snapshot: snapshot({ slots: n }), now });
const fail = (now, message = 'ECONNREFUSED') => ({ type: 'fetch-error', error: new Error(message), now });
const keys = (text, now = T0 + 100) => keysOf(text).map((key) => ({ type: 'key', key, now }));
const connected = [tick(T0), snap(T0 + 5)];

test('keysOf: arrows in both encodings, letters, Ctrl-C; anything else is other', (t) => {
  t.deepEqual(keysOf('\x1b[A\x1bOB\x1b[Bkjq\x03xritsz\x1b[5~'),
    ['up', 'down', 'down', 'up', 'down', 'quit', 'interrupt', 'recycle', 'reload', 'inspect', 'range', 'series', 'other', 'other']);
});

test('the first tick fetches; the snapshot renders and sets the next poll an interval later; that tick fetches again', (t) => {
  const { steps } = drive([tick(T0), snap(T0 + 5), tick(T0 + 1005)], { intervalMs: 1000 });
  t.deepEqual(steps[0].effects, [{ type: 'fetch' }], 'no timer while a fetch is out: its answer sets the next');
  t.deepEqual(steps[1].effects, [{ type: 'render' }, { type: 'schedule', inMs: 1000 }]);
  t.is(steps[1].state.selected, 0, 'the first slot is selected');
  t.deepEqual(steps[2].effects, [{ type: 'fetch' }]);
});

test('a tick that comes early polls not, and sets the timer again rather than stall', (t) => {
  const { effects, state } = drive([...connected, tick(T0 + 1000)], { intervalMs: 1000 });
  t.deepEqual(effects, [{ type: 'schedule', inMs: 5 }]);
  t.false(state.fetching);
});

const moves = [
  ['j', 1], ['jjjjj', 2], ['jjk', 1], ['kkk', 0], ['\x1b[B\x1b[B\x1b[A', 1], ['\x1bOB', 1], ['jzq', null],
];
for (const [pressed, want] of moves) {
  test(`keys ${JSON.stringify(pressed)} select ${want ?? 'nothing more: q quits'}`, (t) => {
    const { state } = drive([...connected, ...keys(pressed)]);
    if (want === null) t.true(state.done);
    else t.is(state.selected, want);
  });
}

test('selection is by slot: a snapshot with a slot twice (a row per worker) moves over each slot once', (t) => {
  const s = snapshot({ slots: 3 });
  const twice = { ...s, slots: [s.slots[0], { ...s.slots[1], pid: 999, state: 'draining', current: false }, s.slots[1], s.slots[2]] };
  const { steps } = drive([tick(T0), { type: 'snapshot', snapshot: twice, now: T0 + 5 }, ...keys('j'), ...keys('j')]);
  t.deepEqual(steps.slice(2).map((x) => x.state.selected), [1, 2]);
});

test('the selected slot gone from a snapshot: the first one is selected', (t) => {
  const { state } = drive([...connected, ...keys('jj'), snap(T0 + 1005, 2)]);
  t.is(state.selected, 0);
});

for (const [what, pressed] of [['q', 'q'], ['Ctrl-C', '\x03']]) {
  test(`${what} quits: a quit effect, and nothing after it`, (t) => {
    const { steps, state } = drive([...connected, ...keys(pressed), snap(T0 + 2000), tick(T0 + 3000)]);
    t.deepEqual(steps[2].effects, [{ type: 'quit' }]);
    t.true(state.done);
    t.deepEqual(steps.slice(3).flatMap((x) => x.effects), []);
  });
}

// [what, inputs after the first tick, ends with an error?]
const failing = [
  ['fails for failAfterMs', [fail(T0 + 5), tick(T0 + 1005), fail(T0 + 1010), tick(T0 + 2010), fail(T0 + 5005)], true],
  ['fails just short of failAfterMs', [fail(T0 + 5), tick(T0 + 1005), fail(T0 + 5004)], false],
  ['recovers in between', [fail(T0 + 5), tick(T0 + 1005), snap(T0 + 4000), tick(T0 + 5000), fail(T0 + 5010)], false],
];
for (const [what, inputs, ends] of failing) {
  test(`a supervisor that ${what}: ${ends ? 'quits with a coded error' : 'keeps retrying'}`, (t) => {
    const { state, effects } = drive([tick(T0), ...inputs], { intervalMs: 1000, failAfterMs: 5000 });
    t.is(state.done, ends);
    if (ends) {
      t.is(effects.length, 1);
      t.is(effects[0].type, 'quit');
      t.true(effects[0].error instanceof NodesupError);
      t.is(effects[0].error.code, 'NODESUP_ERR_NOT_RUNNING');
      t.regex(effects[0].error.message, /no answer from the supervisor for 5 s: ECONNREFUSED/);
    } else {
      t.regex(state.fetchError, /^cannot reach the supervisor: ECONNREFUSED \(retrying\)$/);
      t.deepEqual(types(effects), ['render', 'schedule']);
    }
  });
}

test('a fetch that succeeds clears the error line and keeps the selection', (t) => {
  const { state } = drive([...connected, ...keys('j'), tick(T0 + 1005), fail(T0 + 1010), tick(T0 + 2010), snap(T0 + 2020)]);
  t.is(state.fetchError, null);
  t.is(state.failingSince, null);
  t.is(state.selected, 1);
});

test('an action: says so, asks for it; its outcome is said for MESSAGE_MS, then a tick takes the message away', (t) => {
  const start = [tick(T0), snap(T0 + 5)];
  const { steps, state } = drive([...start, ...keys('jx', T0 + 100), { type: 'outcome', name: 'recycle', slot: 1, result: { result: 'recycled' }, now: T0 + 200 },
    { type: 'snapshot', snapshot: snapshot({ slots: 3 }), now: T0 + 210 }, tick(T0 + 200 + MESSAGE_MS - 1), tick(T0 + 200 + MESSAGE_MS)], { intervalMs: 60_000 });
  const [x, outcome, refreshed, early, expired] = steps.slice(3);
  t.deepEqual(x.effects, [{ type: 'render' }, { type: 'action', name: 'recycle', slot: 1 }, { type: 'schedule', inMs: MESSAGE_MS }]);
  t.deepEqual(x.state.note, { text: 'recycle slot 1…', level: 'info', until: T0 + 100 + MESSAGE_MS });
  t.is(outcome.state.note.text, 'recycle slot 1: replaced');
  t.true(outcome.effects.some((e) => e.type === 'fetch'), 'the outcome polls at once, not a minute later');
  t.deepEqual(outcome.effects.at(-1), { type: 'schedule', inMs: MESSAGE_MS }, 'the next wake is the new message\'s end');
  t.deepEqual(refreshed.effects, [{ type: 'render' }], 'the poll a minute away does not move the wake');
  t.truthy(early.state.note, 'still shown a moment before');
  t.deepEqual(expired.effects, [{ type: 'render' }, { type: 'schedule', inMs: 60_000 - MESSAGE_MS + 10 }]);
  t.is(state.note, null);
});

test('a failing action says why, as an error; reload has no slot', (t) => {
  const { state, steps } = drive([...connected, ...keys('r'), { type: 'outcome', name: 'reload', slot: null, error: new Error('already reloading'), now: T0 + 300 }]);
  t.deepEqual(steps[2].effects.find((e) => e.type === 'action'), { type: 'action', name: 'reload', slot: null });
  t.like(state.note, { text: 'reload failed: already reloading', level: 'error' });
});

test('an outcome while a fetch is out: the next poll follows that fetch at once', (t) => {
  const { steps } = drive([...connected, tick(T0 + 1005), { type: 'outcome', name: 'recycle', slot: 0, result: 'ok', now: T0 + 1006 }, snap(T0 + 1010)], { intervalMs: 1000 });
  t.false(types(steps[3].effects).includes('fetch'), 'never two fetches out');
  t.true(types(steps[4].effects).includes('fetch'));
});

test('x and i with no slot selected (no snapshot yet) warn and ask nothing', (t) => {
  for (const k of ['x', 'i']) {
    const { state, effects } = drive([tick(T0), ...keys(k)]);
    t.like(state.note, { text: 'no worker selected', level: 'warn' });
    t.false(types(effects).includes('action'));
  }
});

test('history: each snapshot and each move asks for the selected slot\'s, two points a column; t steps the range and asks again, s only redraws', (t) => {
  const { steps } = drive([...connected, ...keys('j'), ...keys('t'), ...keys('s')], { history: true, width: 100 });
  const asked = (i) => steps[i].effects.filter((e) => e.type === 'fetch-history');
  t.deepEqual(asked(1), [{ type: 'fetch-history', slot: 0, range: { rangeMs: RANGES[0], points: 200 } }]);
  t.deepEqual(asked(2), [{ type: 'fetch-history', slot: 1, range: { rangeMs: RANGES[0], points: 200 } }]);
  t.deepEqual(asked(3), [{ type: 'fetch-history', slot: 1, range: { rangeMs: RANGES[1], points: 200 } }]);
  t.deepEqual(steps[3].state.view, { range: 1, series: 0, data: null });
  t.deepEqual(steps[4].effects, [{ type: 'render' }]);
  t.is(steps[4].state.view.series, 1);
  const cycled = drive([...connected, ...keys('ttt'), ...keys('s'.repeat(CHART_SERIES.length))]).state.view;
  t.deepEqual([cycled.range, cycled.series], [0, 0], 'both wrap around');
});

test('without fetchHistory nothing asks for history', (t) => {
  const { steps } = drive([...connected, ...keys('jt')], { history: false });
  t.false(steps.flatMap((x) => x.effects).some((e) => e.type === 'fetch-history'));
});

const range5m = { rangeMs: RANGES[0], points: 160 };
const histories = [
  ['for the selected slot and range', { slot: 0, range: range5m }, true],
  ['for a slot left since', { slot: 1, range: range5m }, false],
  ['for a range left since', { slot: 0, range: { rangeMs: RANGES[1], points: 160 } }, false],
];
for (const [what, answer, kept] of histories) {
  test(`a history ${what} is ${kept ? 'drawn' : 'dropped'}`, (t) => {
    const data = { slot: answer.slot, t: [1], rss: [2] };
    const { state, effects } = drive([...connected, { type: 'history', ...answer, data, now: T0 + 10 }], { history: true });
    t.is(state.view.data, kept ? data : null);
    t.deepEqual(types(effects).includes('render'), kept);
  });
}

test('a failed history (data null) falls back to the trail', (t) => {
  const data = { slot: 0, t: [1], rss: [2] };
  const { state } = drive([...connected, { type: 'history', slot: 0, range: range5m, data, now: T0 + 10 }, { type: 'history', slot: 0, range: range5m, data: null, now: T0 + 20 }], { history: true });
  t.is(state.view.data, null);
});

// An inspect report longer than a 24-row terminal.
const report = { slot: 0, pid: 4000, memory: { rss: 1024 * 1024 }, advice: ['all good'] };
const inspected = [...connected, ...keys('i'), { type: 'outcome', name: 'inspect', slot: 0, result: report, now: T0 + 300 }];

test('inspect opens the overlay at its top, and the message goes', (t) => {
  const { state } = drive(inspected);
  t.is(state.overlay, report);
  t.is(state.overlayTop, 0);
  t.is(state.note, null);
  t.true(state.overlayLines > 23, `${state.overlayLines} lines: longer than the screen`);
});

test('overlay scroll: ↓ stops where the last line reaches the bottom, ↑ stops at the top; a resize clamps it', (t) => {
  const { state: opened } = drive(inspected);
  const bottom = opened.overlayLines - 23;
  const scroll = (text, extra = []) => drive([...inspected, ...keys(text, T0 + 400), ...extra]).state;
  t.is(scroll('jjj').overlayTop, 3);
  t.is(scroll('j'.repeat(200)).overlayTop, bottom);
  t.is(scroll(`${'j'.repeat(200)}k`).overlayTop, bottom - 1, 'one up from the bottom, however far down it was pushed');
  t.is(scroll('jjkkkk').overlayTop, 0);
  t.true(bottom > 3);
  t.is(scroll('j'.repeat(200), [{ type: 'resize', width: 80, height: 27, now: T0 + 500 }]).overlayTop, bottom - 3, 'three rows taller: three lines less to scroll');
  t.is(scroll('j'.repeat(200), [{ type: 'resize', width: 80, height: 500, now: T0 + 500 }]).overlayTop, 0, 'taller than the report');
});

test('overlay: any other key closes it, q included, without quitting; Ctrl-C quits', (t) => {
  for (const k of ['q', 'x', 'z']) {
    const { state, effects } = drive([...inspected, ...keys(k, T0 + 400)]);
    t.is(state.overlay, null, k);
    t.false(state.done, k);
    t.deepEqual(effects, [{ type: 'render' }], `${k} does nothing else`);
  }
  const { state, effects } = drive([...inspected, ...keys('\x03', T0 + 400)]);
  t.true(state.done);
  t.deepEqual(effects, [{ type: 'quit' }]);
});

test('a resize renders at the new size and asks the next history for the new width', (t) => {
  const { state, steps } = drive([...connected, { type: 'resize', width: 120, height: 40, now: T0 + 10 }, snap(T0 + 1005)], { history: true });
  t.deepEqual(state.size, { width: 120, height: 40 });
  t.deepEqual(steps[2].effects, [{ type: 'render' }]);
  t.is(steps[3].effects.find((e) => e.type === 'fetch-history').range.points, 240);
});

test('an unknown input is a bug, said at once', (t) => {
  t.throws(() => reduce(initialState(), { type: 'nonsense' }), { message: /unknown input nonsense/ });
});
