// Shared by the fault-injection tests: config files, raw HTTP connections, process checks and a
// seeded PRNG. Built on test/helpers/cli.js, which starts the real CLI and cleans up after it.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { once } from 'node:events';
import { scratch, runCli, startCli, ROOT } from '../helpers/cli.js';

export const FAULT_APPS = path.join(ROOT, 'test/fixtures/apps/faults');
export const faultApp = (name) => path.join(FAULT_APPS, name);

export { writeConfig } from '../helpers/cli.js';

/**
 * startCli, plus a teardown that SIGKILLs every worker seen before the helper's own teardown runs
 * (ava runs teardowns last-registered first). The helper awaits the primary's exit, which execa
 * only reports once every holder of its stdout pipe is gone: a worker that outlived its primary
 * would hang the whole file instead of failing its test.
 */
export function start(t, args, opts) {
  const run = startCli(t, args, opts);
  t.teardown(() => {
    for (const pid of run.pids) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  });
  return run;
}

/**
 * Send `sig` to the primary itself. Not run.child.kill(): execa follows a SIGTERM with a SIGKILL
 * 5 s later (forceKillAfterDelay), which would cut short every stop that drains for longer.
 */
export function signal(run, sig) {
  process.kill(run.child.pid, sig);
}

/** Run a control command (`stop`, `recycle 0`, …) against the supervisor of `run`. */
export function control(run, args) {
  return runCli(args, { env: { NODESUP_RUN_DIR: run.runDir } });
}

/**
 * A raw keep-alive HTTP/1.1 connection on loopback. `get(path)` sends a request and resolves on the
 * first bytes of its answer; `closed` resolves when the server closes the socket.
 */
export async function rawConnection(t, port) {
  const sock = net.connect(port, '127.0.0.1');
  t.teardown(() => sock.destroy());
  sock.on('error', () => {}); // a reset is one of the outcomes under test
  await once(sock, 'connect');
  sock.setEncoding('latin1');
  let waiter = null;
  let received = '';
  sock.on('data', (text) => {
    received += text;
    if (waiter && /\r\n\r\n/.test(received)) {
      const w = waiter;
      waiter = null;
      w(received);
      received = '';
    }
  });
  const closed = new Promise((resolve) => sock.once('close', resolve));
  return {
    sock,
    closed,
    get(p) {
      sock.write(`GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
      return new Promise((resolve) => { waiter = resolve; });
    },
    send(p) {
      sock.write(`GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
    },
  };
}

/** VmRSS of pid in bytes, or null. */
export function rssOf(pid) {
  try {
    const m = /\nVmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Pids of live processes whose working directory is `dir` (a CLI run leaves none behind). */
export function processesIn(dir) {
  const out = [];
  const real = fs.realpathSync(dir);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cwd;
    try {
      cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
    } catch {
      continue;
    }
    if (cwd === real) out.push(Number(entry));
  }
  return out;
}

/** Every pid a run has shown: its primary, each worker ever spawned and the fixtures' children. */
export function allPids(run) {
  return [run.child.pid, ...run.pids];
}

/** mulberry32: a small seeded PRNG, so every fuzz case can be replayed from its seed. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return { next, int, pick: (list) => list[int(list.length)], chance: (p) => next() < p };
}

/** At most `n` tasks at once: the real-CLI fuzz must not starve the other test files of CPU. */
export function limiter(n) {
  let active = 0;
  const waiting = [];
  return async (fn) => {
    if (active >= n) await new Promise((resolve) => waiting.push(resolve));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/** `promise`, or a rejection naming `what` after `ms`: a fault must fail its test, not hang the file. */
export function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The run's exit ({exitCode, stderr, …}) within `ms`. */
export function exited(run, ms = 45_000) {
  return within(run.exited, ms, 'nodesup to exit');
}
