import test from 'ava';
import { PassThrough, Writable } from 'node:stream';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { runStatusScreen } from '../../../src/report/status/status-screen.js';
import { NodesupError } from '../../../src/errors.js';
import { snapshot } from '../fake-snapshot.js';

const ENTER_ALT = '\x1b[?1049h';
const LEAVE_ALT = '\x1b[?1049l';
const plain = (s) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

// A fake terminal: keys go in through a PassThrough that claims to be a TTY, bytes come out into
// a Writable that remembers them.
function terminal({ columns = 100, rows = 30 } = {}) {
  const input = new PassThrough();
  input.isTTY = true;
  input.rawModes = [];
  input.setRawMode = (on) => { input.rawModes.push(on); return input; };
  let written = '';
  const output = new Writable({ write(chunk, _enc, done) { written += chunk; done(); } });
  Object.assign(output, { columns, rows, isTTY: true });
  return {
    input, output,
    get written() { return written; },
    press: (keys) => input.write(keys),
    async waitFor(pred, what, ms = 3000) {
      const end = Date.now() + ms;
      while (!pred(written)) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(plain(written).slice(-400))}`);
        await sleep(10);
      }
    },
  };
}

function start(t, term, { fetchSnapshot = async () => snapshot({ slots: 3 }), actions = {}, ...rest } = {}) {
  const calls = [];
  const signals = new EventEmitter();
  const done = runStatusScreen({
    fetchSnapshot,
    actions: {
      recycle: async (slot) => { calls.push(['recycle', slot]); return { message: `slot ${slot} recycling` }; },
      reload: async () => { calls.push(['reload']); return 'started'; },
      inspect: async (slot) => { calls.push(['inspect', slot]); return { slot, pid: 4000 + slot, memory: { rss: 1024 * 1024 }, advice: ['all good'] }; },
      ...actions,
    },
    input: term.input, output: term.output, intervalMs: 20, signals, ...rest,
  });
  t.teardown(() => term.press('\x03'));
  return { done, calls, signals };
}

test('enters the alt screen, draws a row per slot, x recycles the slot chosen with ↓, q quits and restores', async (t) => {
  const term = terminal();
  const { done, calls } = start(t, term);
  await term.waitFor((w) => /\n?.*4002 ready/.test(plain(w)), 'slot rows');
  t.true(term.written.startsWith(ENTER_ALT + '\x1b[?25l'));
  t.deepEqual(term.input.rawModes, [true]);
  for (const pid of [4000, 4001, 4002]) t.true(plain(term.written).includes(`${pid} ready`));
  t.true(term.written.includes('\x1b[K'), 'lines erase their own tail');
  t.false(term.written.includes('\x1b[2J'), 'no full-screen clear');

  term.press('\x1b[B');
  term.press('x');
  await term.waitFor(() => calls.length > 0, 'recycle call');
  t.deepEqual(calls, [['recycle', 1]]);
  await term.waitFor((w) => plain(w).includes('recycle slot 1: slot 1 recycling'), 'result message');

  term.press('q');
  t.deepEqual(await done, { reason: 'quit' });
  t.true(term.written.endsWith('\x1b[?25h' + LEAVE_ALT));
  t.deepEqual(term.input.rawModes, [true, false]);
});

test('k/j and arrows move the selection within bounds; r reloads', async (t) => {
  const term = terminal();
  const { done, calls } = start(t, term);
  await term.waitFor((w) => plain(w).includes('4002 ready'), 'rows');
  term.press('jjjjjk'); // down past the end, then one up
  term.press('x');
  term.press('\x1b[A\x1b[A\x1b[A'); // up past the top
  term.press('x');
  term.press('r');
  await term.waitFor(() => calls.length === 3, 'three calls');
  t.deepEqual(calls, [['recycle', 1], ['recycle', 0], ['reload']]);
  term.press('\x03');
  t.deepEqual(await done, { reason: 'quit' });
});

test('i shows the inspect overlay; ↓ scrolls it to the advice; any other key closes it (q too) without quitting', async (t) => {
  const term = terminal();
  const { done, calls } = start(t, term);
  await term.waitFor((w) => plain(w).includes('4000 ready'), 'rows');
  term.press('i');
  await term.waitFor((w) => plain(w).includes('nodesup inspect: slot 0 · pid 4000'), 'overlay');
  t.deepEqual(calls, [['inspect', 0]]);
  t.true(plain(term.written).includes('↑↓ scroll · any other key closes'), 'the report is longer than 30 rows');
  t.false(plain(term.written).includes('all good'), 'the advice is below the fold');
  term.press('j'.repeat(60)); // past the end: it stops at the last line
  await term.waitFor((w) => plain(w).includes('all good'), 'the advice scrolled into view');
  t.false(plain(term.written).includes('4000 ready', plain(term.written).indexOf('all good')), 'scrolling did not close it');
  const before = term.written.length;
  term.press('q');
  await term.waitFor((w) => plain(w.slice(before)).includes('4000 ready'), 'table again');
  term.press('q');
  t.deepEqual(await done, { reason: 'quit' });
});

test('a failing action shows its error and the screen goes on', async (t) => {
  const term = terminal();
  const { done } = start(t, term, { actions: { recycle: async () => { throw new Error('slot 0 is already recycling'); } } });
  await term.waitFor((w) => plain(w).includes('4000 ready'), 'rows');
  term.press('x');
  await term.waitFor((w) => plain(w).includes('recycle slot 0 failed: slot 0 is already recycling'), 'error message');
  term.press('q');
  t.deepEqual(await done, { reason: 'quit' });
});

test('fetch errors show a message and retry; recovering clears it', async (t) => {
  const term = terminal();
  let fails = 3;
  const { done } = start(t, term, { fetchSnapshot: async () => { if (fails-- > 0) throw new Error('ECONNREFUSED'); return snapshot({ slots: 2 }); } });
  await term.waitFor((w) => plain(w).includes('cannot reach the supervisor: ECONNREFUSED (retrying)'), 'error line');
  await term.waitFor((w) => plain(w).includes('4001 ready'), 'recovered');
  term.press('q');
  t.deepEqual(await done, { reason: 'quit' });
});

test('a supervisor gone for longer than failAfterMs: rejects with a coded error and restores the terminal', async (t) => {
  const term = terminal();
  const { done } = start(t, term, { failAfterMs: 150, fetchSnapshot: async () => { throw new Error('ENOENT'); } });
  const err = await t.throwsAsync(done, { instanceOf: NodesupError });
  t.is(err.code, 'NODESUP_ERR_NOT_RUNNING');
  t.is(err.exitCode, 1);
  t.true(term.written.endsWith('\x1b[?25h' + LEAVE_ALT));
  t.deepEqual(term.input.rawModes, [true, false]);
});

test('SIGTERM restores the terminal and resolves', async (t) => {
  const term = terminal();
  const { done, signals } = start(t, term);
  await term.waitFor((w) => plain(w).includes('4000 ready'), 'rows');
  signals.emit('SIGTERM', 'SIGTERM');
  t.deepEqual(await done, { reason: 'signal', signal: 'SIGTERM' });
  t.true(term.written.endsWith(LEAVE_ALT));
  t.is(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT') + signals.listenerCount('exit'), 0);
});

test('an exception in rendering restores the terminal and rejects', async (t) => {
  const term = terminal();
  const { done } = start(t, term, { fetchSnapshot: async () => ({ slots: 'not an array' }) });
  await t.throwsAsync(done);
  t.true(term.written.endsWith(LEAVE_ALT));
});

test('resize redraws at the new width; no line is wider than the terminal', async (t) => {
  const term = terminal({ columns: 160, rows: 40 });
  const { done } = start(t, term, { intervalMs: 60_000 });
  await term.waitFor((w) => plain(w).includes('RST'), 'wide table');
  const before = term.written.length;
  Object.assign(term.output, { columns: 60, rows: 20 });
  term.output.emit('resize');
  await term.waitFor((w) => w.length > before, 'redraw');
  const frame = term.written.slice(before);
  t.false(plain(frame).includes('RST'), 'narrow: minor columns dropped');
  for (const line of frame.split(/\x1b\[\d+;1H|\x1b\[H/).slice(1)) t.true(plain(line).length <= 60, JSON.stringify(plain(line)));
  term.press('q');
  await done;
});

test('the chart asks for the selected slot\'s history; t steps the range, s the series, ↓ the slot', async (t) => {
  const term = terminal({ columns: 80, rows: 24 });
  const asked = [];
  const fetchHistory = async (slot, range) => {
    asked.push([slot, range.rangeMs, range.points]);
    const to = snapshot().now;
    return { range: { slot, from: to - range.rangeMs, to, t: [to - 1000], rss: [100 * 1024 * 1024], heapUsed: [50 * 1024 * 1024], events: [] } };
  };
  start(t, term, { fetchHistory });
  await term.waitFor((w) => plain(w).includes('slot 0  rss MiB, last 5m'), 'the 5 minute rss chart of slot 0');
  t.deepEqual(asked[0], [0, 5 * 60_000, 160], 'two points a column of an 80-column terminal');
  term.press('t');
  await term.waitFor((w) => plain(w).includes('slot 0  rss MiB, last 30m'), 'the 30 minute chart');
  await term.waitFor(() => asked.some(([, ms]) => ms === 30 * 60_000), 'a 30 minute history asked for');
  term.press('s');
  await term.waitFor((w) => plain(w).includes('slot 0  heap used MiB, last 30m'), 'the heap series');
  term.press('j');
  await term.waitFor(() => asked.some(([slot, ms]) => slot === 1 && ms === 30 * 60_000), 'slot 1\'s history');
  await term.waitFor((w) => plain(w).includes('slot 1  heap used MiB, last 30m'), 'slot 1 in the pane');
});
