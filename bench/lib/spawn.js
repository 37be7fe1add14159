// Starting the processes a bench measures (nodesup, the bare cluster primary, the load generator)
// and cleaning up after them: every pid the bench learns of is remembered and, at the end or on
// Ctrl-C, killed by pid. Nothing is killed by name.
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './args.js';
import { startTime } from './proc.js';

export const BIN = path.join(ROOT, 'bin/nodesup.js');
const CONN_LOAD = path.join(ROOT, 'bench/lib/conn-load.js');
/** The CLI of the nodesup checkout at root (this one, or the old one a side by side runs). */
export const binOf = (root = ROOT) => path.join(root, 'bin/nodesup.js');
const LOAD = path.join(ROOT, 'bench/lib/load-child.js');

// pid → start time of every process this bench started or learned of (workers, PM2's daemon).
// A pid is only killed while its start time still matches: a recycled pid belongs to someone else.
const owned = new Map();
const cleanups = new Set(); // async cleanups (pm2 kill, scratch dirs)

/** Remember a pid to kill at exit. */
export const own = (pid) => { const start = pid ? startTime(pid) : null; if (start !== null) owned.set(pid, start); };
/** Forget a pid that has exited. */
export const disown = (pid) => owned.delete(pid);

function killOwned() {
  for (const [pid, start] of owned) if (startTime(pid) === start) try { process.kill(pid, 'SIGKILL'); } catch {}
  owned.clear();
}

/** Run fn at the end whatever happens (reverse order of registration is not guaranteed). */
export const atExit = (fn) => { cleanups.add(fn); return () => cleanups.delete(fn); };

/** Kill every remembered pid still alive, run the cleanups; idempotent. */
export async function cleanupAll() {
  for (const fn of [...cleanups]) {
    cleanups.delete(fn);
    try { await fn(); } catch (err) { process.stderr.write(`cleanup: ${err.message}\n`); }
  }
  killOwned();
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, async () => {
    process.stderr.write(`\n${sig}: cleaning up\n`);
    await cleanupAll();
    process.exit(130);
  });
}
process.on('exit', killOwned);

/** A scratch directory removed at the end. */
export function scratch(prefix = 'nodesup-bench-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  atExit(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A free TCP port on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

export const delay = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Start a primary (nodesup or the bare one) whose stdout is NDJSON events. Returns a handle:
 * events (each with `at`, the bench's receive time), waitFor(pred), stop().
 */
export function startPrimary(argv, { env = {}, cwd = ROOT, name = 'primary' } = {}) {
  const child = spawn(process.execPath, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  own(child.pid);
  const run = { child, pid: child.pid, events: [], stderr: '', waiters: new Set(), exitCode: undefined };
  run.exited = new Promise((resolve) => child.on('exit', (code, signal) => {
    disown(child.pid);
    run.exitCode = code ?? signal;
    for (const w of run.waiters) w.fail(new Error(`${name} exited (${code ?? signal}) while waiting for ${w.what}; stderr: ${run.stderr.slice(-800)}`));
    resolve({ code, signal });
  }));
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buf += chunk;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line[0] !== '{') continue;
      let ev;
      try { ev = JSON.parse(line); } catch { continue; }
      if (!ev.event) continue;
      ev.at = Date.now();
      if (typeof ev.time === 'string') ev.time = Date.parse(ev.time);
      if (ev.event === 'worker.spawn') own(ev.pid);
      if (ev.event === 'worker.exit') disown(ev.pid);
      run.events.push(ev);
      for (const w of run.waiters) w.check(ev);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c) => { run.stderr = (run.stderr + c).slice(-8000); });

  /** Resolve with the first event matching pred (past or future). */
  run.waitFor = (pred, { timeout = 60_000, what = 'an event' } = {}) => {
    const found = run.events.find(pred);
    if (found) return Promise.resolve(found);
    if (run.exitCode !== undefined) return Promise.reject(new Error(`${name} has exited; wanted ${what}`));
    return new Promise((resolve, reject) => {
      const w = {
        what,
        check: (ev) => { if (pred(ev)) { done(); resolve(ev); } },
        fail: (err) => { done(); reject(err); },
      };
      const timer = setTimeout(() => w.fail(new Error(`timed out after ${timeout} ms waiting for ${what}; stderr: ${run.stderr.slice(-800)}`)), timeout);
      function done() { clearTimeout(timer); run.waiters.delete(w); }
      run.waiters.add(w);
    });
  };
  /** Resolve once `n` distinct workers have announced worker.ready. */
  run.waitReady = (n, opts = {}) => {
    let count = 0;
    return run.waitFor((e) => e.event === 'worker.ready' && ++count >= n, { what: `${n} ready workers`, ...opts });
  };
  /** SIGTERM, wait for the exit (SIGKILL after `timeout`); resolves {code, signal}. */
  run.stop = async (timeout = 30_000) => {
    if (run.exitCode === undefined) child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), timeout);
    const r = await run.exited;
    clearTimeout(t);
    return r;
  };
  atExit(() => (run.exitCode === undefined ? run.stop(10_000) : null));
  return run;
}

/**
 * `nodesup start …` with a private run dir; cwd is a scratch dir so no stray config is picked up.
 * `root`: the checkout whose bin/nodesup.js runs; its CLI also answers run.cli, since another
 * version's control protocol need not match.
 */
export function startNodesup(args, { env = {}, runDir = scratch('nodesup-run-'), cwd = runDir, root = ROOT } = {}) {
  const bin = binOf(root);
  const run = startPrimary([bin, 'start', ...args], { env: { NODESUP_RUN_DIR: runDir, ...env }, cwd, name: 'nodesup' });
  run.runDir = runDir;
  run.root = root;
  /** Run another nodesup command against this supervisor (reload, status --json, …). */
  run.cli = (cmdArgs, { timeout = 120_000 } = {}) => new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, ...cmdArgs], { cwd, env: { ...process.env, NODESUP_RUN_DIR: runDir }, timeout, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => (err ? reject(new Error(`nodesup ${cmdArgs.join(' ')}: ${err.message} ${stderr}`)) : resolve(stdout)));
  });
  run.status = async () => JSON.parse(await run.cli(['status', '--json']));
  return run;
}

/**
 * Keep-alive load on one URL from a separate process (bench/lib/load-child.js runs autocannon),
 * so the bench's own event loop stays free for /proc sampling. Resolves with the summary.
 * `stop()` ends it early.
 */
export function load({ url, connections, duration, timeout = 10 }) {
  const child = spawn(process.execPath, [LOAD, JSON.stringify({ url, connections, duration, timeout })], { stdio: ['ignore', 'pipe', 'pipe'] });
  own(child.pid);
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => { out += c; });
  child.stderr.on('data', (c) => { err += c; });
  const hardStop = setTimeout(() => child.kill('SIGKILL'), (duration + 60) * 1000);
  const result = new Promise((resolve, reject) => child.on('exit', (code) => {
    disown(child.pid);
    clearTimeout(hardStop);
    try { resolve(JSON.parse(out)); } catch { reject(new Error(`load generator failed (${code}): ${err.slice(-800)}`)); }
  }));
  return { result, stop: () => child.kill('SIGINT') };
}

/**
 * Loops of requests from a separate process (bench/lib/conn-load.js), each loop from its own
 * loopback address; with `keepAlive` false a new connection per request. Resolves with
 * { requests, reqPerSec, failed, why }.
 */
export function connLoad({ url, connections, duration, keepAlive = false }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CONN_LOAD, JSON.stringify({ url, connections, duration, keepAlive })], { stdio: ['ignore', 'pipe', 'inherit'] });
    own(child.pid);
    let out = '';
    child.stdout.on('data', (c) => { out += c; });
    child.on('exit', (code) => {
      disown(child.pid);
      try { resolve(JSON.parse(out)); } catch { reject(new Error(`conn-load failed (${code})`)); }
    });
  });
}
