// The control socket in the primary: claims `<run dir>/<name>.sock` and hands each client to
// connection.js. Anyone who can reach the socket is already us (dir 0700, socket 0600), so
// the threats are a stale socket, a second supervisor with the same name and buggy clients.

import fs from 'node:fs';
import net from 'node:net';
import nodePath from 'node:path';
import { NodesupError } from '../errors.js';
import { serveConnection } from './connection.js';
import { ensureRunDir, MAX_SOCKET_PATH_BYTES, socketPath } from './run-dir.js';
import { MAX_REQUEST_BYTES } from './protocol.js';

const DEFAULTS = Object.freeze({
  maxLineBytes: MAX_REQUEST_BYTES,
  maxWriteBacklog: 4 * 1024 * 1024,
  idleTimeoutMs: 5 * 60 * 1000,
  maxInFlight: 16, // per connection; more requests wait in the socket, not in our memory
  // At close, how long a request in flight has to answer: a `stop` answers once its drain is over,
  // which is when the primary closes this server.
  closeGraceMs: 2000,
});

let bindCount = 0;

const ignore = () => {};

/**
 * Listen on `<dir>/<name>.sock` and serve `handlers`; refuses when a live supervisor holds the name.
 * `report(level, fields, msg)` is where its log lines go: the supervisor's one event stream, never
 * a logger of its own.
 */
export async function startControlServer({ name, dir, handlers, report = ignore, limits = {} }) {
  const opts = { ...DEFAULTS, ...limits };
  ensureRunDir(dir);
  const path = socketPath(dir, name);
  // libuv unlinks the path it bound when the server closes, even if another supervisor's socket is
  // there by then. So we bind a private name and publish it as <name>.sock with link(), which also
  // atomically refuses to replace a socket that appeared since we looked.
  const bound = nodePath.join(dir, `.${process.pid.toString(36)}-${(bindCount++).toString(36)}`);
  if (Buffer.byteLength(bound) > MAX_SOCKET_PATH_BYTES) {
    throw new NodesupError('NODESUP_ERR_CONTROL', `control socket path ${bound} is over the ${MAX_SOCKET_PATH_BYTES}-byte limit of Unix sockets; set NODESUP_RUN_DIR to a shorter path`);
  }
  const sockets = new Set();
  const ctx = { name, handlers, report, opts, sockets };
  /** @type {Map<net.Socket, {shutdown: (graceMs: number) => void}>} */
  const conns = new Map();
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    conns.set(socket, serveConnection(socket, ctx));
    socket.once('close', () => conns.delete(socket));
  });
  server.maxConnections = 1024;

  rmSocket(bound); // left by a killed process that had our pid
  await listen(server, bound);
  let ino;
  try {
    fs.chmodSync(bound, 0o600); // the umask already did it on the primary; this covers the rest
    await publish(bound, path, name);
    ino = fs.statSync(path).ino;
  } catch (err) {
    server.close();
    throw err;
  }
  server.on('error', (err) => report('warn', { err }, 'control socket error'));

  let closing = null;
  return {
    path,
    /** Open client connections (for tests and diagnostics). */
    get connections() {
      let n = 0;
      for (const s of sockets) if (!s.destroyed) n++;
      return n;
    },
    /**
     * Stop listening and remove the socket if it is still ours; every client connection ends once
     * its requests in flight have answered, or after closeGraceMs.
     */
    close() {
      closing ??= new Promise((resolve) => {
        unlinkIfOurs(path, ino);
        server.close(() => resolve());
        for (const c of conns.values()) c.shutdown(opts.closeGraceMs);
      });
      return closing;
    },
  };
}

// Stale sockets from a killed supervisor are replaced; a live one (it accepts a connection) wins.
async function publish(bound, path, name) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const seen = inode(path);
    if (seen !== null && (await isLive(path))) {
      throw new NodesupError('NODESUP_ERR_ALREADY_RUNNING', `a supervisor named "${name}" is already running (socket ${path}); stop it or pass --name`);
    }
    if (seen !== null) rmSocket(path, seen);
    try {
      fs.linkSync(bound, path);
      fs.unlinkSync(bound);
      return;
    } catch (err) {
      if (err.code === 'EEXIST') continue; // another supervisor got there first: probe it
      // A file system without hard links to sockets: rename is not exclusive, but we just checked.
      fs.renameSync(bound, path);
      return;
    }
  }
  throw new NodesupError('NODESUP_ERR_CONTROL', `cannot claim control socket ${path}: it keeps changing under us; is another supervisor named "${name}" starting?`);
}

function listen(server, path) {
  return new Promise((resolve, reject) => {
    const onError = (err) => {
      reject(new NodesupError('NODESUP_ERR_CONTROL', `cannot listen on control socket ${path}: ${err.code ?? err.message}; set NODESUP_RUN_DIR to a private writable directory`, { cause: err }));
    };
    server.once('error', onError);
    // The bind happens synchronously inside listen() on the primary: a 0177 umask makes the socket
    // 0600 from birth, so there is no window in which it is wider.
    const old = setUmask(0o177);
    try {
      server.listen(path, () => {
        server.off('error', onError);
        resolve();
      });
    } finally {
      if (old !== null) process.umask(old);
    }
  });
}

// Worker threads may not change the umask; the chmod after listen still applies there.
function setUmask(mask) {
  try {
    return process.umask(mask);
  } catch {
    return null;
  }
}

// Unix socket connects answer at once: refused/missing means stale; accepted (even by a stuck
// process, through the backlog) or busy means someone holds the name.
function isLive(path) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(path);
    const done = (live, err) => {
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve(live);
    };
    const timer = setTimeout(() => done(true), 2000);
    sock.once('connect', () => done(true));
    sock.once('error', (err) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') done(false);
      else if (err.code === 'EAGAIN') done(true);
      else done(false, new NodesupError('NODESUP_ERR_CONTROL', `cannot probe control socket ${path}: ${err.code}; remove it if no supervisor uses it`, { cause: err }));
    });
  });
}

function inode(path) {
  try {
    return fs.lstatSync(path).ino;
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
}

// Remove a dead socket; with `ino`, only if it is still the one we probed (not a newcomer's).
function rmSocket(path, ino) {
  let st;
  try {
    st = fs.lstatSync(path);
  } catch (err) {
    if (err.code === 'ENOENT') return;
    throw err;
  }
  if (!st.isSocket()) {
    throw new NodesupError('NODESUP_ERR_CONTROL', `${path} exists and is not a socket; remove it or pass --name`);
  }
  if (ino !== undefined && st.ino !== ino) return;
  try {
    fs.unlinkSync(path);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
}

// A newer supervisor may have taken over the name after we were presumed dead: leave its socket.
function unlinkIfOurs(path, ino) {
  try {
    if (fs.statSync(path).ino === ino) fs.unlinkSync(path);
  } catch {
    // already gone
  }
}
