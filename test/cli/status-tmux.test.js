// The live status view in a real terminal: tmux runs a shell, we type the command, read the screen
// with capture-pane and press keys with send-keys. Each test has its own tmux server (-L).
import { testWith } from '../helpers/tools.js';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { execa } from 'execa';
import { setTimeout as delay } from 'node:timers/promises';
import { startCli, app, freePort, scratch, waitGone, alive, BIN } from '../helpers/cli.js';
import { request } from '../../src/control/client.js';

const test = testWith('tmux');
const PROMPT = 'tmux-test$'; // PS1 adds a space, which capture-pane trims
let sessions = 0;

/** A shell in a detached tmux of width×height, its own server, killed at teardown. */
async function terminal(t, { width, height, env = {}, cwd }) {
  if (!cwd) {
    cwd = scratch();
    t.teardown(() => fs.rmSync(cwd, { recursive: true, force: true }));
  }
  const socket = `nodesup-${process.pid}-${sessions++}`;
  const tmux = (...args) => execa('tmux', ['-L', socket, '-f', '/dev/null', ...args], { reject: false });
  let socketPath = null; // kill-server leaves the socket file behind: remove it too
  t.teardown(async () => {
    await tmux('kill-server');
    if (socketPath?.endsWith(socket)) fs.rmSync(socketPath, { force: true });
  });
  const vars = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  // bash ignores a PS1 from the environment; an rc file of one line sets a prompt we can recognise.
  const rc = path.join(scratch(), 'bashrc');
  fs.writeFileSync(rc, `PS1='${PROMPT} '\n`);
  t.teardown(() => fs.rmSync(path.dirname(rc), { recursive: true, force: true }));
  const started = await tmux('new-session', '-d', '-x', String(width), '-y', String(height), '-c', cwd, ...vars, `bash --noprofile --rcfile ${rc}`);
  if (started.exitCode !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  socketPath = (await tmux('display-message', '-p', '#{socket_path}')).stdout.trim();
  const term = {
    capture: async () => (await tmux('capture-pane', '-p', '-t', '0')).stdout,
    /** Type a line into the shell. */
    type: async (line) => { await tmux('send-keys', '-t', '0', '-l', line); await tmux('send-keys', '-t', '0', 'Enter'); },
    /** Close the terminal, as closing its window would: everything in it gets SIGHUP. */
    close: async () => { await tmux('kill-server'); },
    /** Press keys by tmux name: 'Down', 'x', 'q'. */
    press: async (...keys) => { await tmux('send-keys', '-t', '0', ...keys); },
    /** Poll the screen until pred(text) holds; the error shows the last screen. */
    async waitFor(pred, what, timeout = 20_000) {
      const deadline = Date.now() + timeout;
      for (;;) {
        const text = await term.capture();
        if (pred(text)) return text;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${text}`);
        await delay(100);
      }
    },
  };
  await term.waitFor((s) => s.includes(PROMPT), 'the shell prompt');
  return term;
}

// A table row: optional selection marker, slot, pid, state.
const row = (slot, pid, state = 'ready') => new RegExp(`^[ >]\\s*${slot}\\s+${pid}\\s+${state}\\b`, 'm');
const selectedRow = (slot) => new RegExp(`^>\\s*${slot}\\s+\\d+\\s`, 'm');
const anyRow = /^[ >]\s*\d+\s+\d+\s+(spawning|ready|draining|killing)\b/m;
const exitLine = /^EXIT=(\d+)\s*$/m;

// Park a request that never answers (/hang) on slot `slot`'s worker, so its drain lasts until
// killTimeout. The primary deals connections round-robin: open them one by one and watch the
// per-worker request counters until that slot has one.
async function hangOn(t, run, port, slot) {
  const sockets = [];
  t.teardown(() => { for (const s of sockets) s.destroy(); });
  const served = (snap) => snap.slots.reduce((n, r) => n + (r.last?.requests ?? 0), 0);
  for (let attempt = 0; attempt < 12; attempt++) {
    const before = served(await run.status());
    const req = http.get({ host: '127.0.0.1', port, path: '/hang', agent: false });
    req.on('error', () => {});
    req.on('socket', (s) => sockets.push(s));
    const snap = await run.waitForStatus((sn) => served(sn) > before, { what: 'the /hang request counted', timeout: 10_000 });
    if ((snap.slots.find((r) => r.slot === slot).last?.requests ?? 0) > 0) return;
  }
  throw new Error(`could not get a request onto slot ${slot}`);
}

async function statusView(t, { width, height }) {
  const port = await freePort();
  const run = startCli(t, [app('http.js'), '-w', '3', '--metrics', 'false', '--poll-interval', '300ms', '--kill-timeout', '6s', '--name', 'tmuxed'], { env: { PORT: String(port) } });
  const ready = await Promise.all([0, 1, 2].map((slot) => run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` })));
  const term = await terminal(t, { width, height, env: { NODESUP_RUN_DIR: run.runDir } });
  await term.type(`node ${BIN} status; echo "EXIT=$?"`);

  // A frame reaches the terminal in more than one write: the whole of it is on screen once its last line (the keys) is.
  const screen = await term.waitFor((s) => ready.every((e) => row(e.slot, e.pid).test(s)) && /q quit/.test(s), 'a row for every slot with its pid, and the keys');
  t.log(`nodesup status at ${width}×${height}:\n${screen}`);
  t.regex(screen, /nodesup tmuxed/, 'the header names the supervisor');
  t.regex(screen, /q quit/, 'the keys are on screen');
  const lines = screen.split('\n');
  t.true(lines.length <= height, `${lines.length} lines fit ${height} rows`);
  t.true(lines.every((l) => l.length <= width), `every line fits ${width} columns`);
  t.regex(screen, selectedRow(0), 'the first slot starts selected');

  // Slot 1's worker holds a request, so its recycle takes killTimeout: the view must stay live meanwhile.
  await hangOn(t, run, port, 1);
  await term.press('Down');
  await term.waitFor((s) => selectedRow(1).test(s), 'slot 1 selected');
  await term.press('x');
  const recycle = await run.waitFor((e) => e.event === 'worker.recycle', { what: 'the recycle asked for with x' });
  t.like(recycle, { slot: 1, pid: ready[1].pid, reason: 'manual' });
  const spawn = await run.waitFor((e) => e.event === 'worker.spawn' && e.slot === 1 && e.cause === 'replace', { what: 'the replacement' });
  // One row per slot: the replacement serves it, the old worker rides along marked ↻ while it drains.
  const during = await term.waitFor((s) => new RegExp(`^[ >]\\s*1\\s+${spawn.pid}\\s+ready\\b.*↻ ?${ready[1].pid}\\b`, 'm').test(s),
    'the replacement ready and the old worker draining, both on screen while the recycle is pending');
  t.log(`while slot 1 recycles:\n${during}`);
  t.false(run.events.some((e) => e.event === 'worker.exit' && e.pid === ready[1].pid), 'the old worker was still there when the screen showed it');
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === ready[1].pid, { what: 'the old worker gone after killTimeout' });
  await term.waitFor((s) => /recycle slot 1: replaced/.test(s) && !new RegExp(`↻ ?${ready[1].pid}\\b`).test(s), 'the outcome on screen and the old pid gone');
  t.is(run.count((e) => e.event === 'worker.recycle'), 1, 'only the selected slot');

  await term.press('q');
  // The shell prints EXIT= and then its prompt: wait for both, not just the first.
  const promptAfterExit = new RegExp(`EXIT=\\d+\\s*\\n${PROMPT.replace('$', '\\$')}\\s*$`, 'm');
  const after = await term.waitFor((s) => exitLine.test(s) && promptAfterExit.test(s), 'the shell and its prompt back after q');
  t.is(exitLine.exec(after)[1], '0', 'status exits 0 on q');
  t.false(anyRow.test(after), `the alternate screen is gone:\n${after}`);
  t.regex(after, new RegExp(`EXIT=0\\s*\\n${PROMPT.replace('$', '\\$')}\\s*$`, 'm'), 'the prompt follows');
  t.is(run.child.exitCode, null, 'quitting the view leaves the supervisor running');
}

test('nodesup status in tmux 100×30: rows for every slot, ↓ x recycles slot 1, q returns to the shell', statusView, { width: 100, height: 30 });
test('nodesup status in tmux 80×24: the same at the smallest supported size', statusView, { width: 80, height: 24 });

// Start `nodesup start --tui` in a terminal and wait until both workers are ready.
async function startTui(t) {
  const runDir = scratch();
  const cwd = scratch();
  const seen = new Set(); // every pid to kill if the test fails half-way (tmux's SIGHUP means reload to nodesup)
  t.teardown(async () => {
    const snap = await request({ dir: runDir, name: 'tui', op: 'status', timeoutMs: 2000 }).catch(() => null);
    for (const pid of [snap?.pid, ...(snap?.slots ?? []).map((s) => s.pid), ...seen]) if (pid) try { process.kill(pid, 'SIGKILL'); } catch {}
    fs.rmSync(runDir, { recursive: true, force: true });
    fs.rmSync(cwd, { recursive: true, force: true });
  });
  const term = await terminal(t, { width: 100, height: 30, cwd, env: { NODESUP_RUN_DIR: runDir, PORT: String(await freePort()) } });
  await term.type(`node ${BIN} start --tui ${app('http.js')} -w 2 --metrics false --poll-interval 500ms --name tui; echo "EXIT=$?"`);

  // The pids come from the supervisor itself; its logs go to a file while the view owns the terminal.
  const deadline = Date.now() + 30_000;
  let snap = null;
  while (!(snap?.slots?.length === 2 && snap.slots.every((s) => s.state === 'ready'))) {
    if (Date.now() > deadline) throw new Error(`no ready supervisor; the screen:\n${await term.capture()}`);
    snap = await request({ dir: runDir, name: 'tui', op: 'status', timeoutMs: 2000 }).catch(() => null);
    if (snap) for (const pid of [snap.pid, ...snap.slots.map((s) => s.pid)]) if (pid) seen.add(pid);
    await delay(200);
  }
  return { term, runDir, snap };
}

test('nodesup start --tui in tmux: rows appear, q stops the supervisor and every worker', async (t) => {
  const { term, runDir, snap } = await startTui(t);
  const screen = await term.waitFor((s) => snap.slots.every((r) => row(r.slot, r.pid).test(s)), 'a row for every slot with its pid');
  t.log(`nodesup start --tui at 100×30:\n${screen}`);
  t.regex(screen, /nodesup tui/);

  await term.press('q');
  const after = await term.waitFor((s) => exitLine.test(s), 'the supervisor to stop after q', 30_000);
  t.is(exitLine.exec(after)[1], '0', 'a clean stop');
  t.false(anyRow.test(after), 'the alternate screen is gone');
  const pids = [snap.pid, ...snap.slots.map((s) => s.pid)];
  t.deepEqual(await waitGone(pids), [], 'the primary and every worker exited');
  t.false(pids.some(alive));
  const log = fs.readFileSync(`${runDir}/tui.log`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.true(log.some((e) => e.event === 'supervisor.stop' && e.signal === 'tui'), 'the log says why it stopped');
  t.true(log.filter((e) => e.event === 'worker.exit').every((e) => e.planned), 'workers drained, not crashed');
});

test('nodesup status when the supervisor goes away: exit 1 with one line, the terminal restored; with none running: exit 1 at once', async (t) => {
  const run = startCli(t, [app('http.js'), '-w', '1', '--metrics', 'false', '--poll-interval', '300ms', '--name', 'leaving'], { env: { PORT: String(await freePort()) } });
  const ready = await run.waitFor((e) => e.event === 'worker.ready', { what: 'a ready worker' });
  const term = await terminal(t, { width: 100, height: 30, env: { NODESUP_RUN_DIR: run.runDir } });
  await term.type(`node ${BIN} status; echo "EXIT=$?"`);
  await term.waitFor((s) => row(0, ready.pid).test(s), 'the row of slot 0');

  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
  const after = await term.waitFor((s) => exitLine.test(s), 'the view to give up on the stopped supervisor', 30_000);
  t.is(exitLine.exec(after)[1], '1');
  t.false(anyRow.test(after), 'the alternate screen is gone');
  t.regex(after, /^nodesup: .*leaving.*\n(.*\n)?EXIT=1/m, `one line says why, right above the exit code:\n${after}`);

  await term.type('clear');
  await term.waitFor((s) => !exitLine.test(s), 'a clear screen');
  await term.type(`node ${BIN} status; echo "EXIT=$?"`);
  const none = await term.waitFor((s) => exitLine.test(s), 'status with nothing running');
  t.is(exitLine.exec(none)[1], '1');
  t.regex(none, /nodesup: no nodesup supervisor is running/);
});

test('nodesup start --tui whose terminal is closed: the supervisor drains and stops, nothing left', async (t) => {
  const { term, runDir, snap } = await startTui(t);
  await term.waitFor((s) => snap.slots.every((r) => row(r.slot, r.pid).test(s)), 'a row for every slot with its pid');
  await term.close();
  const pids = [snap.pid, ...snap.slots.map((s) => s.pid)];
  t.deepEqual(await waitGone(pids, 30_000), [], 'the primary and every worker exited');
  const log = fs.readFileSync(`${runDir}/tui.log`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.true(log.some((e) => e.event === 'supervisor.stop'), 'a clean stop was logged');
  t.true(log.filter((e) => e.event === 'worker.exit').every((e) => e.planned), 'workers were drained, not killed by the hangup');
  t.false(fs.existsSync(`${runDir}/tui.sock`), 'the control socket is gone');
});

// One owner for signals: the primary's handler drains; the screen only ends when the drain is over.
for (const signal of ['SIGTERM', 'SIGINT']) {
  test(`nodesup start --tui sent ${signal}: drains like any stop, no worker forced, exit 0`, async (t) => {
    const { term, runDir, snap } = await startTui(t);
    await term.waitFor((s) => snap.slots.every((r) => row(r.slot, r.pid).test(s)), 'a row for every slot with its pid');
    process.kill(snap.pid, signal);
    const after = await term.waitFor((s) => exitLine.test(s), `the supervisor to stop after ${signal}`, 30_000);
    t.is(exitLine.exec(after)[1], '0', 'a clean stop');
    t.false(anyRow.test(after), 'the alternate screen is gone');
    t.deepEqual(await waitGone([snap.pid, ...snap.slots.map((s) => s.pid)]), [], 'the primary and every worker exited');
    const log = fs.readFileSync(`${runDir}/tui.log`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    t.like(log.find((e) => e.event === 'supervisor.stop'), { signal });
    const exits = log.filter((e) => e.event === 'worker.exit');
    t.is(exits.length, 2);
    t.true(exits.every((e) => e.planned && e.forced === false), `drained, not forced: ${JSON.stringify(exits)}`);
  });
}
