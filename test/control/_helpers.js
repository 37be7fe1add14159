// Shared by the control socket tests: private tmp run dirs, a raw line client, stale sockets.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startControlServer } from '../../src/control/server.js';

/** A fresh run dir under the tmpdir, removed when the test ends. */
export async function tmpRunDir(t) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'nsup-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Handlers that record their calls and answer with something recognisable. */
export function fakeHandlers(extra = {}) {
  const calls = [];
  const handlers = {
    calls,
    status() {
      calls.push(['status']);
      return { name: 'api', pid: process.pid, slots: [{ slot: 0, state: 'ready' }] };
    },
    async reload() {
      calls.push(['reload']);
      return { reloaded: 2 };
    },
    async recycle(args) {
      calls.push(['recycle', args]);
      return { slot: args.slot, reason: 'manual' };
    },
    async inspect(args) {
      calls.push(['inspect', args]);
      return { slot: args.slot, heapSnapshot: args.heapSnapshot ?? false, advice: [] };
    },
    async stop() {
      calls.push(['stop']);
      return { stopped: true };
    },
    ...extra,
  };
  return handlers;
}

/** Start a server in `dir` that is closed when the test ends. */
export async function startServer(t, { name = 'api', dir, handlers = fakeHandlers(), limits, report } = {}) {
  const server = await startControlServer({ name, dir, handlers, limits, report });
  t.teardown(() => server.close());
  return server;
}

/** A raw socket that collects reply lines; `next()` resolves with the next parsed one. */
export async function rawClient(t, socketPath) {
  const sock = net.connect(socketPath);
  t.teardown(() => sock.destroy());
  await once(sock, 'connect');
  sock.setEncoding('utf8');
  const lines = [];
  const waiters = [];
  let buf = '';
  sock.on('data', (text) => {
    buf += text;
    let nl;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const reply = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      const w = waiters.shift();
      if (w) w(reply);
      else lines.push(reply);
    }
  });
  const closed = new Promise((resolve) => sock.once('close', resolve));
  sock.on('error', () => {}); // the server may reset us on purpose
  return {
    sock,
    closed,
    send(obj) {
      sock.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n');
    },
    /** The next reply; rejects if the connection closes first, so a lost reply fails instead of hanging. */
    next() {
      if (lines.length > 0) return Promise.resolve(lines.shift());
      if (sock.destroyed) return Promise.reject(new Error('connection closed before the reply'));
      return new Promise((resolve, reject) => {
        waiters.push(resolve);
        closed.then(() => reject(new Error('connection closed before the reply')));
      });
    },
    received: lines,
  };
}

/** Leave a stale socket at `socketPath`: a process listens there and dies by SIGKILL. */
export async function makeStaleSocket(socketPath) {
  const code = `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, 'SIGKILL'))`;
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  const [, signal] = await once(child, 'exit');
  if (signal !== 'SIGKILL') throw new Error(`stale socket helper exited with ${signal}`);
  await fs.stat(socketPath); // it must still be there
}

/**
 * A `report(level, fields, msg)` sink, as the supervisor's event stream takes it, that records
 * entries; `waitFor(level, regex)` resolves on a matching one.
 */
export function recordingReport() {
  const entries = [];
  const waiters = [];
  const report = (level, fields, msg) => {
    const entry = { level, msg, ...fields };
    entries.push(entry);
    for (const w of [...waiters]) {
      if (w.level === level && w.re.test(entry.msg)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(entry);
      }
    }
  };
  return {
    entries,
    report,
    waitFor(level, re) {
      const hit = entries.find((e) => e.level === level && re.test(e.msg));
      return hit ? Promise.resolve(hit) : new Promise((resolve) => waiters.push({ level, re, resolve }));
    },
  };
}
