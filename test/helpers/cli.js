// Starts the real CLI with execa, reads its NDJSON stdout as events, and cleans up every process
// the run started, whatever the test did.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from '../../src/control/client.js';
import { childrenOf } from '../../src/proc/descendants.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(ROOT, 'bin/nodesup.js');
export const APPS = path.join(ROOT, 'test/fixtures/apps');
export const app = (name) => path.join(APPS, name);

// Outgoing connections take their local port from the kernel's ephemeral range, the same range
// listen(0) draws from: a port found free there can be a client's by the time the app binds it
// (seen in CI, with a corpus app opening sockets beside). So test ports come from below it, and
// above 10080, the highest port fetch refuses to connect to ("bad port", seen in CI).
const EPHEMERAL_LOW = (() => {
  try { return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768; } catch { return 32768; }
})();
const PORTS_LOW = 10_081;

// ava runs two test files at once, each in its own process, both drawing from the same range: a
// port is claimed for the whole run by creating a file named for it, which only one process can.
// A claim whose process is gone is taken back.
const CLAIMS = path.join(os.tmpdir(), 'nodesup-test-ports');
const claimed = [];
process.on('exit', () => { for (const file of claimed) fs.rmSync(file, { force: true }); });

function claim(port) {
  fs.mkdirSync(CLAIMS, { recursive: true });
  const file = path.join(CLAIMS, String(port));
  try {
    fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
    claimed.push(file);
    return true;
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
    let owner = 0; // a claim being written or just released: not ours to judge, try another port
    try { owner = Number(fs.readFileSync(file, 'utf8')); } catch { /* gone meanwhile */ }
    if (owner > 0 && owner !== process.pid && !alive(owner)) fs.rmSync(file, { force: true });
    return false;
  }
}

function bindable(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.unref();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A free TCP port on loopback, below the ephemeral range, handed out once per test run. */
export async function freePort() {
  const span = Math.max(1000, EPHEMERAL_LOW - PORTS_LOW);
  for (let i = 0; i < 200; i++) {
    const port = PORTS_LOW + Math.floor(Math.random() * span);
    if (claim(port) && await bindable(port)) return port;
  }
  throw new Error('no free port found below the ephemeral range after 200 tries');
}

/** A private run dir and scratch dir for one test. */
export function scratch() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'nodesup-test-'));
}

/** Run `nodesup <args>` to completion (for commands that exit). */
export function runCli(args, opts = {}) {
  return execa(process.execPath, [BIN, ...args], { reject: false, timeout: 60_000, cwd: opts.cwd ?? scratch(), env: opts.env, ...opts.execa });
}

/**
 * Start `nodesup start …` in the background. Returns a handle with the parsed events, waitFor(),
 * pids seen, and stop/kill helpers. t.teardown cleans up everything it started.
 */
export function startCli(t, args, { env = {}, cwd } = {}) {
  const runDir = scratch();
  const child = execa(process.execPath, [BIN, 'start', ...args], {
    // forceKillAfterDelay: false, or execa follows kill('SIGTERM') with SIGKILL after 5 s and cuts a drain short.
    cwd: cwd ?? runDir, reject: false, buffer: { stdout: false, stderr: true }, forceKillAfterDelay: false,
    env: { NODESUP_RUN_DIR: runDir, ...env },
  });
  const run = {
    child, runDir, events: [], lines: [], pids: new Set(), waiters: [],
    waitFor: (pred, { timeout = 60_000, what = 'event' } = {}) => waitFor(run, pred, timeout, what),
    count: (pred) => run.events.filter(pred).length,
    status: () => request({ dir: runDir, op: 'status' }),
    waitForStatus: (pred, o) => waitForStatus(run, pred, o),
    // A request to one of its ports whose failure says whether the supervisor still runs, and its last lines.
    fetch: (url, init) => fetchSaying(url, init).catch((err) => {
      const state = child.exitCode === null ? 'still runs' : `exited ${child.exitCode}`;
      throw new Error(`${err.message}; nodesup ${state}, its last lines:\n${run.lines.slice(-15).join('\n')}`, { cause: err });
    }),
  };
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      run.lines.push(line);
      let ev;
      try { ev = JSON.parse(line); } catch { continue; }
      if (ev.pid && ev.event === 'worker.spawn') run.pids.add(ev.pid);
      if (ev.fixture && ev.child) run.pids.add(ev.child);
      run.events.push(ev);
      for (const w of [...run.waiters]) w.check(ev);
    }
  });
  run.exited = child.then((r) => r);
  t.teardown(async () => {
    // Workers first: one that outlived the primary still holds its stdout, and would hold `exited`.
    for (const pid of run.pids) try { process.kill(pid, 'SIGKILL'); } catch {}
    if (child.exitCode === null) child.kill('SIGKILL');
    await run.exited;
    fs.rmSync(runDir, { recursive: true, force: true });
  });
  return run;
}

function waitFor(run, pred, timeout, what) {
  const found = run.events.find(pred);
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const w = {
      check: (ev) => { if (pred(ev)) { done(); resolve(ev); } },
    };
    const timer = setTimeout(() => { done(); reject(new Error(`timed out after ${timeout} ms waiting for ${what}; last lines:\n${run.lines.slice(-15).join('\n')}`)); }, timeout);
    const onExit = () => { done(); reject(new Error(`nodesup exited while waiting for ${what}; last lines:\n${run.lines.slice(-15).join('\n')}`)); };
    run.exited.then(() => setImmediate(() => { if (run.waiters.includes(w)) onExit(); }));
    function done() { clearTimeout(timer); run.waiters.splice(run.waiters.indexOf(w), 1); }
    run.waiters.push(w);
  });
}

/** True while pid exists (and is not a zombie). */
export function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The orphan guard of a primary: its child running /bin/sh (src/primary/lifecycle/orphan-guard.js). */
export function guardsOf(primaryPid) {
  return childrenOf(primaryPid).filter((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'sh';
    } catch {
      return false;
    }
  });
}

/** Wait until none of pids is alive; resolves with those still alive at the deadline. */
export async function waitGone(pids, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const left = [...pids].filter(alive);
    if (!left.length || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** fetch, whose failure names what failed: fetch itself says only "fetch failed", the rest is in its cause. */
export function fetchSaying(url, init) {
  return fetch(url, init).catch((err) => {
    throw new Error(`${init?.method ?? 'GET'} ${url}: ${err.cause?.code ?? err.cause?.message ?? err.message}`, { cause: err });
  });
}

/** GET a URL on loopback; resolves {status, body}. */
export async function get(url) {
  const res = await fetchSaying(url);
  return { status: res.status, body: await res.text() };
}

// Ask the control socket for status until pred holds: the condition is the supervisor's state,
// which no event announces.
async function waitForStatus(run, pred, { timeout = 60_000, what = 'status' } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const snap = await run.status().catch(() => null);
    if (snap && pred(snap)) return snap;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(200);
  }
}

/** Write `export default <obj>` to a fresh .mjs config file, removed when the test ends. */
export function writeConfig(t, obj, name = 'test.config.mjs') {
  const dir = scratch();
  const file = path.join(dir, name);
  fs.writeFileSync(file, `export default ${JSON.stringify(obj)};\n`);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return file;
}

/** Every live worker a status snapshot shows: each slot's row and the workers riding along it (`others`). */
export function workersOf(snap) {
  return (snap?.slots ?? []).flatMap((row) => [row, ...(row.others ?? [])]);
}

/** A command refused as bad input should be: exit 2, one line naming what was wrong, no stack, nothing started. */
export function expectRefused(t, r, runDir, expected) {
  t.is(r.exitCode, 2, r.stderr);
  t.regex(r.stderr, expected);
  t.is(r.stderr.trim().split('\n').length, 1, `exactly one line, got:\n${r.stderr}`);
  t.notRegex(r.stderr, /\n\s+at /, 'no stack trace');
  t.is(r.stdout, '', 'no logs: nothing was started');
  t.deepEqual(fs.readdirSync(runDir).filter((f) => f.endsWith('.sock')), [], 'no control socket left');
}
