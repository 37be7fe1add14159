// The terminal shell of the status screen on a fake clock: keys go in through a stream, frames come
// out of a fake terminal, and time passes only when the test moves the clock. clock.settle() lets
// the jobs already queued run (a key's handler, a fetch's promise) without any time passing.
import test from 'ava';
import { PassThrough } from 'node:stream';
import { EventEmitter } from 'node:events';
import { runStatusScreen } from '../../../src/report/status/status-screen.js';
import { MESSAGE_MS } from '../../../src/report/status/status-state.js';
import { NodesupError } from '../../../src/errors.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { snapshot } from '../fake-snapshot.js';

const ENTER_ALT = '\x1b[?1049h';
const LEAVE_ALT = '\x1b[?1049l';
const plain = (s) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

// A fake terminal: keys go in through a PassThrough that claims to be a TTY; the output remembers
// every byte and can say what the screen shows after the last frame.
function terminal(clock, { columns = 100, rows = 30 } = {}) {
  const input = new PassThrough();
  input.isTTY = true;
  input.rawModes = [];
  input.setRawMode = (on) => { input.rawModes.push(on); return input; };
  let written = '';
  const output = Object.assign(new EventEmitter(), { columns, rows, isTTY: true, write: (chunk) => { written += chunk; return true; } });
  return {
    input, output,
    get written() { return written; },
    /** The last frame as plain text, a line a row. */
    screen: () => written.slice(written.lastIndexOf('\x1b[H')).split(/\x1b\[\d+;1H|\x1b\[H/).slice(1).map(plain).join('\n'),
    async press(keys) {
      input.write(keys);
      await clock.settle();
    },
    async resize(cols, rowCount) {
      Object.assign(output, { columns: cols, rows: rowCount });
      output.emit('resize');
      await clock.settle();
    },
  };
}

async function start(t, { columns, rows, fetchSnapshot, actions = {}, ...rest } = {}) {
  const clock = new FakeClock();
  const term = terminal(clock, { columns, rows });
  const calls = [];
  const fetches = { n: 0 };
  const signals = new EventEmitter();
  let ended = false;
  const done = runStatusScreen({
    fetchSnapshot: () => { fetches.n++; return fetchSnapshot ? fetchSnapshot(fetches.n) : Promise.resolve(snapshot({ slots: 3 })); },
    actions: {
      recycle: async (slot) => { calls.push(['recycle', slot]); return { message: `slot ${slot} recycling` }; },
      reload: async (...args) => { calls.push(['reload', ...args]); return 'started'; },
      inspect: async (slot) => { calls.push(['inspect', slot]); return { slot, pid: 4000 + slot, memory: { rss: 1024 * 1024 }, advice: ['all good'] }; },
      ...actions,
    },
    input: term.input, output: term.output, intervalMs: 1000, signals, clock, ...rest,
  });
  done.then(() => { ended = true; }, () => { ended = true; });
  t.teardown(() => term.input.write('\x03'));
  await clock.settle();
  return { clock, term, done, calls, fetches, signals, ended: () => ended };
}

test('enters the alt screen, draws a row per slot, ↓ x recycles slot 1 and says how it went, q quits and restores', async (t) => {
  const { term, done, calls, clock } = await start(t);
  t.true(term.written.startsWith(ENTER_ALT + '\x1b[?25l'));
  t.deepEqual(term.input.rawModes, [true]);
  for (const pid of [4000, 4001, 4002]) t.true(term.screen().includes(`${pid} ready`), `${pid}`);
  t.true(term.written.includes('\x1b[K'), 'lines erase their own tail');
  t.false(term.written.includes('\x1b[2J'), 'no full-screen clear');

  await term.press('\x1b[Bx');
  t.deepEqual(calls, [['recycle', 1]]);
  t.true(term.screen().includes('recycle slot 1: slot 1 recycling'));

  await term.press('q');
  t.deepEqual(await done, { reason: 'quit' });
  t.true(term.written.endsWith('\x1b[?25h' + LEAVE_ALT));
  t.deepEqual(term.input.rawModes, [true, false]);
  t.is(clock.pending.size, 0, 'no timer left behind');
});

test('k/j and arrows move the selection within bounds; r reloads with no slot', async (t) => {
  const { term, done, calls } = await start(t);
  await term.press('jjjjjk'); // down past the end, then one up
  await term.press('x');
  await term.press('\x1b[A\x1b[A\x1b[A'); // up past the top
  await term.press('x');
  await term.press('r');
  t.deepEqual(calls, [['recycle', 1], ['recycle', 0], ['reload']]);
  await term.press('\x03');
  t.deepEqual(await done, { reason: 'quit' });
});

test('i shows the inspect overlay; ↓ scrolls it to the advice; any other key closes it (q too) without quitting', async (t) => {
  const { term, done, calls, ended } = await start(t);
  await term.press('i');
  t.deepEqual(calls, [['inspect', 0]]);
  t.regex(term.screen(), /nodesup inspect: slot 0 · pid 4000/);
  t.true(term.screen().includes('↑↓ scroll · any other key closes'), 'the report is longer than 30 rows');
  t.false(term.screen().includes('all good'), 'the advice is below the fold');
  await term.press('j'.repeat(60)); // past the end: it stops at the last line
  t.true(term.screen().includes('all good'), 'the advice scrolled into view');
  t.false(term.screen().includes('4000 ready'), 'scrolling did not close it');
  await term.press('q');
  t.true(term.screen().includes('4000 ready'), 'the table again');
  t.false(ended());
  await term.press('q');
  t.deepEqual(await done, { reason: 'quit' });
});

test('a failing action shows its error and the screen goes on', async (t) => {
  const { term, done } = await start(t, { actions: { recycle: async () => { throw new Error('slot 0 is already recycling'); } } });
  await term.press('x');
  t.true(term.screen().includes('recycle slot 0 failed: slot 0 is already recycling'));
  await term.press('j');
  t.regex(term.screen(), /^>\s+1\s+4001 ready/m, 'still taking keys');
  await term.press('q');
  t.deepEqual(await done, { reason: 'quit' });
});

test('polls once per intervalMs of the clock, and at once after an action', async (t) => {
  const { clock, term, fetches } = await start(t, { intervalMs: 1000 });
  t.is(fetches.n, 1, 'the first poll at start');
  await clock.advance(999);
  t.is(fetches.n, 1);
  await clock.advance(1);
  t.is(fetches.n, 2);
  await clock.advance(3000);
  t.is(fetches.n, 5);
  await term.press('x');
  t.is(fetches.n, 6, 'the action\'s effect is fetched without waiting for the interval');
});

test('a message stays MESSAGE_MS on the clock, then goes without a key or a poll', async (t) => {
  const { clock, term } = await start(t, { intervalMs: 60_000 });
  await term.press('x');
  t.true(term.screen().includes('recycle slot 0: slot 0 recycling'));
  await clock.advance(MESSAGE_MS - 1);
  t.true(term.screen().includes('recycle slot 0: slot 0 recycling'));
  await clock.advance(1);
  t.false(term.screen().includes('recycle slot 0'));
});

test('fetch errors show a message and retry each interval; recovering clears it', async (t) => {
  const { clock, term, done, fetches } = await start(t, {
    fetchSnapshot: (n) => (n <= 3 ? Promise.reject(new Error('ECONNREFUSED')) : Promise.resolve(snapshot({ slots: 2 }))),
  });
  t.true(term.screen().includes('cannot reach the supervisor: ECONNREFUSED (retrying)'));
  await clock.advance(2000);
  t.is(fetches.n, 3);
  t.true(term.screen().includes('(retrying)'));
  await clock.advance(1000);
  t.true(term.screen().includes('4001 ready'));
  t.false(term.screen().includes('retrying'));
  await term.press('q');
  t.deepEqual(await done, { reason: 'quit' });
});

test('a supervisor gone for failAfterMs: rejects with a coded error then, not before, and restores the terminal', async (t) => {
  const { clock, term, done, ended } = await start(t, { failAfterMs: 5000, fetchSnapshot: () => Promise.reject(new Error('ENOENT')) });
  await clock.advance(4999);
  t.false(ended(), 'still retrying just short of failAfterMs');
  await clock.advance(1);
  const err = await t.throwsAsync(done, { instanceOf: NodesupError });
  t.is(err.code, 'NODESUP_ERR_NOT_RUNNING');
  t.is(err.exitCode, 1);
  t.regex(err.message, /no answer from the supervisor for 5 s: ENOENT/);
  t.true(term.written.endsWith('\x1b[?25h' + LEAVE_ALT));
  t.deepEqual(term.input.rawModes, [true, false]);
});

test('a fetch that never answers is given up after failAfterMs, said, and retried', async (t) => {
  const { clock, term, fetches, ended } = await start(t, { failAfterMs: 3000, fetchSnapshot: (n) => (n === 1 ? new Promise(() => {}) : Promise.resolve(snapshot({ slots: 1 }))) });
  await clock.advance(2999);
  t.true(term.screen().includes('connecting to the supervisor'));
  await clock.advance(1);
  t.true(term.screen().includes('cannot reach the supervisor: no answer within 3000 ms (retrying)'));
  await clock.advance(1000);
  t.is(fetches.n, 2);
  t.true(term.screen().includes('4000 ready'));
  t.false(ended());
});

test('SIGTERM restores the terminal, resolves, and leaves no listener or timer behind', async (t) => {
  const { term, done, signals, clock } = await start(t);
  signals.emit('SIGTERM', 'SIGTERM');
  t.deepEqual(await done, { reason: 'signal', signal: 'SIGTERM' });
  t.true(term.written.endsWith(LEAVE_ALT));
  t.is(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT') + signals.listenerCount('exit') + signals.listenerCount('uncaughtExceptionMonitor'), 0);
  t.is(term.input.listenerCount('data') + term.output.listenerCount('resize'), 0);
  t.is(clock.pending.size, 0);
});

test('inside the supervisor: no stop signals of its own, and it ends when `until` settles', async (t) => {
  let stopped;
  const until = new Promise((resolve) => { stopped = resolve; });
  const { done, signals, ended, clock } = await start(t, { stopSignals: [], until });
  signals.emit('SIGTERM', 'SIGTERM');
  await clock.settle();
  t.false(ended(), 'the primary owns SIGTERM');
  stopped();
  t.deepEqual(await done, { reason: 'stopped' });
});

test('the terminal going away (input ends) resolves as a hangup', async (t) => {
  const { term, done } = await start(t);
  term.input.end();
  t.deepEqual(await done, { reason: 'hangup' });
});

test('an exception while drawing restores the terminal and rejects', async (t) => {
  const { term, done } = await start(t, { fetchSnapshot: () => Promise.resolve({ slots: 'not an array' }) });
  await t.throwsAsync(done, { message: /snapshot\.slots: expected an array/ });
  t.true(term.written.endsWith(LEAVE_ALT));
});

test('resize redraws at the new width; no line is wider than the terminal', async (t) => {
  const { term, done } = await start(t, { columns: 160, rows: 40 });
  t.true(term.screen().includes('RST'), 'wide table');
  await term.resize(60, 20);
  const lines = term.screen().split('\n');
  t.false(term.screen().includes('RST'), 'narrow: minor columns dropped');
  t.true(lines.length <= 20);
  for (const line of lines) t.true(line.length <= 60, JSON.stringify(line));
  await term.press('q');
  await done;
});

test('the chart asks for the selected slot\'s history; t steps the range, s the series, ↓ the slot', async (t) => {
  const asked = [];
  const fetchHistory = async (slot, range) => {
    asked.push([slot, range.rangeMs, range.points]);
    const to = snapshot().now;
    return { range: { slot, from: to - range.rangeMs, to, t: [to - 1000], rss: [100 * 1024 * 1024], heapUsed: [50 * 1024 * 1024], events: [] } };
  };
  const { term } = await start(t, { columns: 80, rows: 24, fetchHistory });
  t.true(term.screen().includes('slot 0  rss MiB, last 5m'));
  t.deepEqual(asked, [[0, 5 * 60_000, 160]], 'two points a column of an 80-column terminal');
  await term.press('t');
  t.deepEqual(asked.at(-1), [0, 30 * 60_000, 160]);
  t.true(term.screen().includes('slot 0  rss MiB, last 30m'));
  await term.press('s');
  t.true(term.screen().includes('slot 0  heap used MiB, last 30m'));
  await term.press('j');
  t.deepEqual(asked.at(-1), [1, 30 * 60_000, 160]);
  t.true(term.screen().includes('slot 1  heap used MiB, last 30m'));
});

test('a history that fails leaves the chart on the snapshot\'s trail and the screen going', async (t) => {
  const { term, clock, fetches } = await start(t, { fetchHistory: async () => { throw new Error('unknown op history'); } });
  t.true(term.screen().includes('slot 0  rss MiB, last 5m'));
  t.false(term.screen().includes('unknown op'), 'not an error for the user: an older supervisor');
  await clock.advance(1000);
  t.is(fetches.n, 2);
});
