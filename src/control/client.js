// The CLI side of the control socket: find the supervisor, send newline-delimited JSON requests,
// turn error replies back into NodesupErrors so `main.js` maps them to exit codes. It speaks the
// newest protocol version and falls back, once per connection, to an older supervisor's
// (protocol.js, "Versions").

import net from 'node:net';
import { ERROR_CODES, NodesupError } from '../errors.js';
import { checkRunDir, listSupervisors, runDir, socketPath } from './run-dir.js';
import { CONTROL_VERSION, FEATURES, MAX_REPLY_BYTES, frame, isProgress, isVersionRefusal, lineReader, requestMessage } from './protocol.js';
const PROBE_TIMEOUT_MS = 1000;

/** Send one request to supervisor `name` (found in the run dir when omitted) and return its result. */
export async function request({ name, dir = runDir(), op, args = {}, timeoutMs = 10000 }) {
  return (await call({ name, dir, op, args, timeoutMs })).result;
}

/**
 * Send one request and resolve with `{ result, version, name }`: the reply's result, the protocol
 * version the supervisor answered in (an older one says less) and the supervisor's name (found in
 * the run dir when not given). `onProgress`, when given, hears each step of a long request as it
 * happens, from a supervisor that sends them.
 */
export async function call({ name, dir = runDir(), op, args = {}, timeoutMs = 10000, onProgress = null }) {
  const conn = connect({ name, dir });
  try {
    const result = await conn.request(op, args, { timeoutMs, onProgress });
    return { result, version: conn.version, name: await conn.name };
  } finally {
    conn.close();
  }
}

/** A connection reused for many requests (the live status view polls through one). */
export function connect({ name, dir = runDir() }) {
  let target = name ? Promise.resolve(name) : null;
  let channel = null; // Promise<{send, close, version}> while open or opening
  let closed = false;
  let version = CONTROL_VERSION;

  const open = async (op, args) => {
    if (!target) {
      target = discover(dir, op, args);
      target.catch(() => (target = null)); // nothing running yet: look again next time
    }
    const resolved = await target;
    if (!channel) {
      const current = openChannel(dir, resolved, () => {
        // Reconnect on the next request: the supervisor may have been restarted.
        if (channel === current) channel = null;
      });
      current.catch(() => {
        if (channel === current) channel = null;
      });
      channel = current;
    }
    return channel;
  };

  return {
    /** Send `op` and resolve with its result; rejects with a NodesupError. */
    async request(op, args = {}, { timeoutMs = 10000, onProgress = null } = {}) {
      if (closed) throw new NodesupError('NODESUP_ERR_CONTROL', 'control connection already closed; open a new one');
      const ch = await open(op, args);
      if (closed) ch.close(); // closed while connecting: send() below rejects
      try {
        return await ch.send(op, args, timeoutMs, onProgress);
      } finally {
        version = ch.version;
      }
    },
    /** The protocol version the supervisor answered in so far. */
    get version() {
      return version;
    },
    /** The supervisor's name, once a request has found it. */
    get name() {
      return target ?? Promise.resolve(null);
    },
    /** Close the socket; pending requests reject. */
    close() {
      closed = true;
      channel?.then((ch) => ch.close(), () => {});
      channel = null;
    },
  };
}

// With no name given: the one live supervisor in the run dir, or an error naming the choices.
async function discover(dir, op, args) {
  checkRunDir(dir);
  const probe = async (n) => {
    let path;
    try {
      path = socketPath(dir, n);
    } catch {
      return null; // not a name a supervisor could have chosen
    }
    return (await isLive(path)) ? n : null;
  };
  const live = (await Promise.all(listSupervisors(dir).map(probe))).filter(Boolean);
  if (live.length === 1) return live[0];
  if (live.length === 0) {
    throw new NodesupError('NODESUP_ERR_NOT_RUNNING', `no nodesup supervisor is running (looked in ${dir}); start one with "nodesup start app.js"`);
  }
  const slot = op === 'recycle' || op === 'inspect' ? ` ${args?.slot ?? '<slot>'}` : '';
  const cmd = op === 'ping' ? 'status' : op;
  throw new NodesupError('NODESUP_ERR_AMBIGUOUS', `several supervisors are running (${live.join(', ')}); name one: nodesup ${cmd}${slot} ${live[0]}`);
}

function isLive(path) {
  return new Promise((resolve) => {
    const s = net.connect(path);
    const done = (live) => {
      clearTimeout(timer);
      s.destroy();
      resolve(live);
    };
    const timer = setTimeout(() => done(true), PROBE_TIMEOUT_MS); // slow to accept is still alive
    s.once('connect', () => done(true));
    s.once('error', (err) => done(err.code === 'EAGAIN'));
  });
}

// Open the socket; resolves with { send, close } once connected.
function openChannel(dir, name, onClose) {
  checkRunDir(dir);
  const path = socketPath(dir, name);
  // One channel's state: the requests awaiting their reply, and the version spoken, lowered once
  // an older supervisor refuses ours (every request after speaks its version).
  const ch = { name, path, sock: net.connect(path), pending: new Map(), nextId: 1, version: CONTROL_VERSION };
  const reader = lineReader({
    maxBytes: MAX_REPLY_BYTES,
    onLine: (line) => onReply(ch, line),
    onOverflow: () => {
      ch.sock.destroy();
      failAll(ch, new NodesupError('NODESUP_ERR_CONTROL', `supervisor "${name}" sent a reply over ${MAX_REPLY_BYTES} bytes; is ${path} a nodesup socket?`));
    },
  });
  ch.sock.on('data', (chunk) => reader.push(chunk));
  const send = (op, args, timeoutMs, onProgress = null) => sendRequest(ch, op, args, timeoutMs, onProgress);

  return new Promise((resolve, reject) => {
    let connected = false;
    ch.sock.once('connect', () => {
      connected = true;
      resolve({ send, close: () => ch.sock.destroy(), get version() { return ch.version; } });
    });
    ch.sock.on('error', (err) => {
      const e = connectionError(err, name, path, connected);
      onClose(); // before rejecting, so a retry opens a fresh connection
      if (!connected) reject(e);
      failAll(ch, e);
    });
    ch.sock.on('close', () => {
      const e = closedError(name);
      onClose();
      if (!connected) reject(e);
      failAll(ch, e);
    });
  });
}

const closedError = (name) => new NodesupError('NODESUP_ERR_NOT_RUNNING', `supervisor "${name}" closed the control connection; it may have stopped`);

function failAll(ch, err) {
  for (const p of ch.pending.values()) p.reject(err);
  ch.pending.clear();
}

// One line from the supervisor: a progress line, a version refusal (the request goes again in
// its version), or the reply that settles a request.
function onReply(ch, line) {
  let reply;
  try {
    reply = JSON.parse(line);
  } catch {
    ch.sock.destroy();
    return failAll(ch, new NodesupError('NODESUP_ERR_CONTROL', `supervisor "${ch.name}" sent a reply that is not JSON; is ${ch.path} a nodesup socket?`));
  }
  const p = ch.pending.get(reply?.id);
  if (!p) return; // a reply to a request that already timed out
  if (isProgress(reply)) {
    p.progress?.(reply.progress);
    return;
  }
  ch.pending.delete(reply.id);
  if (isVersionRefusal(reply, p.version)) {
    ch.version = Math.min(ch.version, reply.v);
    return p.retry();
  }
  if (reply.ok) return p.resolve(reply.result);
  const code = typeof reply.error?.code === 'string' && Object.hasOwn(ERROR_CODES, reply.error.code) ? reply.error.code : 'NODESUP_ERR_CONTROL';
  p.reject(new NodesupError(code, String(reply.error?.message ?? `supervisor "${ch.name}" refused the request`)));
}

function sendRequest(ch, op, args, timeoutMs, onProgress) {
  if (ch.sock.destroyed) return Promise.reject(closedError(ch.name));
  return new Promise((resolve, reject) => {
    let id = null;
    const timer = setTimeout(() => {
      ch.pending.delete(id);
      reject(new NodesupError('NODESUP_ERR_CONTROL', `supervisor "${ch.name}" did not answer "${op}" within ${timeoutMs} ms; it may be overloaded, check its logs`));
    }, timeoutMs);
    const settle = (fn) => (v) => {
      clearTimeout(timer);
      fn(v);
    };
    // An older supervisor refused our version without running anything: the same request again, in its version.
    const write = () => {
      if (ch.sock.destroyed) return settle(reject)(closedError(ch.name));
      id = ch.nextId++;
      const v = ch.version;
      ch.pending.set(id, { resolve: settle(resolve), reject: settle(reject), progress: onProgress, version: v, retry: write });
      ch.sock.write(frame(requestMessage(id, op, args, { v, accept: onProgress ? [FEATURES.PROGRESS] : [] })));
    };
    write();
  });
}

function connectionError(err, name, path, connected) {
  if (!connected && err.code === 'ENOENT') {
    return new NodesupError('NODESUP_ERR_NOT_RUNNING', `no supervisor named "${name}" is running (no socket at ${path}); see "nodesup status" for the running ones`, { cause: err });
  }
  if (!connected && err.code === 'ECONNREFUSED') {
    return new NodesupError('NODESUP_ERR_NOT_RUNNING', `no supervisor named "${name}" is running (stale socket ${path}); see "nodesup status" for the running ones`, { cause: err });
  }
  if (connected && (err.code === 'EPIPE' || err.code === 'ECONNRESET')) {
    return new NodesupError('NODESUP_ERR_NOT_RUNNING', `supervisor "${name}" closed the control connection; it may have stopped`, { cause: err });
  }
  if (err.code === 'EACCES') {
    return new NodesupError('NODESUP_ERR_CONTROL', `cannot open ${path}: permission denied; run as the user who started the supervisor`, { cause: err });
  }
  return new NodesupError('NODESUP_ERR_CONTROL', `control connection to "${name}" failed: ${err.code ?? err.message}`, { cause: err });
}
