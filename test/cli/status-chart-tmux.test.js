// The status view's chart in a real terminal, after a real memory recycle: what a person sees is
// the slot's curve, the rss limit as a dashed row labelled in MiB, and a ▲ with the recycle's
// reason under the time the recycle happened, where the curve drops. tmux as in status-tmux.test.js.
import { testWith } from '../helpers/tools.js';
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { setTimeout as delay } from 'node:timers/promises';
import { startCli, app, freePort, scratch, BIN } from '../helpers/cli.js';

const test = testWith('tmux');
let sessions = 0;
const BRAILLE = /[\u2801-\u28ff]/;

async function terminal(t, { width, height, env }) {
  const socket = `nodesup-chart-${process.pid}-${sessions++}`;
  const tmux = (...args) => execa('tmux', ['-L', socket, '-f', '/dev/null', ...args], { reject: false });
  const dir = scratch();
  let socketPath = null;
  t.teardown(async () => {
    await tmux('kill-server');
    if (socketPath?.endsWith(socket)) fs.rmSync(socketPath, { force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const rc = path.join(dir, 'bashrc');
  fs.writeFileSync(rc, "PS1='chart$ '\n");
  const vars = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const started = await tmux('new-session', '-d', '-x', String(width), '-y', String(height), '-c', dir, ...vars, `bash --noprofile --rcfile ${rc}`);
  if (started.exitCode !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  socketPath = (await tmux('display-message', '-p', '#{socket_path}')).stdout.trim();
  return {
    capture: async () => (await tmux('capture-pane', '-p', '-t', '0')).stdout,
    type: async (line) => { await tmux('send-keys', '-t', '0', '-l', line); await tmux('send-keys', '-t', '0', 'Enter'); },
    press: async (...keys) => { await tmux('send-keys', '-t', '0', ...keys); },
  };
}

// Poll the screen until `read(screen)` returns something; the error shows the last screen.
async function waitScreen(term, read, what, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const screen = await term.capture();
    const found = read(screen);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${screen}`);
    await delay(200);
  }
}

// The chart's parts on a captured screen: its axis row, gutter, plot rows, marks and their labels.
function chartOf(screen) {
  const lines = screen.split('\n');
  const a = lines.findIndex((l) => /^ *└─/.test(l));
  if (a < 0) return null;
  const gutter = lines[a].indexOf('└') + 1;
  let top = a;
  while (top > 0 && /^ *(\d+(\.\d)?)?[┤│]/.test(lines[top - 1])) top--;
  const plot = lines.slice(top, a);
  const marks = [...lines[a]].flatMap((ch, i) => (ch === '▲' ? [i - gutter] : []));
  return { lines, axis: a, gutter, width: lines[a].length - gutter, plot, marks, labels: lines[a + 1] ?? '', times: lines[a + 2] ?? '', title: lines[top - 1] ?? '' };
}

async function chartAfterRecycle(t, { width, height }) {
  const port = await freePort();
  const run = startCli(t, [app('leaky-http.js'), '-w', '1', '--max-rss', '100mb', '--poll-interval', '300ms', '--metrics', 'false', '--name', 'charted'],
    { env: { PORT: String(port), LEAK_MB_PER_SEC: '5' } });
  await run.waitFor((e) => e.event === 'worker.ready', { what: 'the first worker ready' });
  const term = await terminal(t, { width, height, env: { NODESUP_RUN_DIR: run.runDir } });
  await term.type(`node ${BIN} status`);

  const recycle = await run.waitFor((e) => e.event === 'worker.recycle', { what: 'a memory recycle', timeout: 90_000 });
  t.true(['rss', 'leak'].includes(recycle.reason), `a memory recycle: ${recycle.reason}`);
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === recycle.pid, { what: 'the recycled worker gone' });

  const seen = await waitScreen(term, (screen) => {
    const c = chartOf(screen);
    return c && c.marks.length > 0 && c.labels.includes(recycle.reason) ? { c, screen, at: Date.now() } : null;
  }, 'a recycle mark with its reason on the chart');
  const { c, screen, at } = seen;
  t.log(`nodesup status at ${width}×${height} after a recycle:\n${screen}`);
  const lines = screen.split('\n');
  t.true(lines.length <= height && lines.every((l) => l.length <= width), 'the view fits the terminal');

  t.regex(c.title, /^slot 0  rss MiB, last 5m  ┄ limit 100 MiB/, 'the chart says what it shows');
  const limitRows = c.plot.filter((l) => l.includes('┄┄┄┄'));
  t.is(limitRows.length, 1, 'one dashed limit row');
  t.regex(limitRows[0], /^ *100┤/, 'labelled 100 on the MiB axis');
  t.true(c.plot.some((l) => BRAILLE.test(l)), 'a curve');
  t.regex(c.times, /-5m .*-2m30s .*now\s*$/, 'the time axis');

  // The first recycle's ▲ sits where its time falls on a 5-minute axis ending at the screen's now
  // (the view redraws every second), and the curve drops in that column or beside it.
  const expected = Math.floor(((Date.parse(recycle.time) - (at - 5 * 60_000)) / (5 * 60_000)) * c.width);
  const mark = c.marks.reduce((best, m) => (Math.abs(m - expected) < Math.abs(best - expected) ? m : best));
  t.true(Math.abs(mark - expected) <= 1, `▲ at column ${mark}, the recycle's time at ${expected}`);
  // Its reason starts under it, or ends at the right edge when it would not fit.
  const from = c.gutter + Math.min(mark, c.width - recycle.reason.length);
  t.is(c.labels.slice(from, from + recycle.reason.length), recycle.reason, 'its reason under it');
  const column = (k) => c.plot.map((l) => [...l][c.gutter + k] ?? ' ').filter((ch) => BRAILLE.test(ch)).length;
  t.true(Math.max(column(mark - 1), column(mark), column(mark + 1)) >= 2, 'a vertical drop of the curve at the mark');

  await term.press('t');
  await waitScreen(term, (s) => /^slot 0  rss MiB, last 30m/m.test(s), 'the 30 minute range after t');
  await term.press('q');
}

test('nodesup status in tmux 80×24 after a real rss recycle: the chart, its limit row and the recycle mark', chartAfterRecycle, { width: 80, height: 24 });
test('nodesup status in tmux 160×48 after a real rss recycle: the same, filling the terminal', chartAfterRecycle, { width: 160, height: 48 });
