// One client connection on the control socket: newline-delimited JSON in, one reply per request
// out (after the progress lines of a client that asked for them). Every buffer is bounded and
// nothing a client sends can throw out of here into the primary.

import { ERROR_CODES } from '../errors.js';
import { CONTROL_VERSION, FEATURES, MIN_CONTROL_VERSION, OPS, frame, lineReader, okReply, errorReply, progressMessage } from './protocol.js';
import { parseSlot } from '../slot.js';

const DISCARD_MS = 5000;
const VERSIONS = MIN_CONTROL_VERSION === CONTROL_VERSION ? `${CONTROL_VERSION}` : `${MIN_CONTROL_VERSION} to ${CONTROL_VERSION}`;

/**
 * Serve requests on `socket` with ctx = { name, handlers, report, opts, sockets }. Returns the
 * connection's `shutdown(graceMs)`: the server is closing, so no new request starts; those in
 * flight get `graceMs` to answer (a `stop` answers once its drain is over, just before the
 * primary exits), then the connection ends.
 */
export function serveConnection(socket, ctx) {
  const { opts, sockets, report } = ctx;
  const state = { queue: [], inFlight: 0, ended: false, discarding: false, closing: false };
  sockets.add(socket);
  watchSocket(socket, ctx, () => state.inFlight > 0);
  socket.on('close', () => sockets.delete(socket));
  const send = replier(socket, opts, report);

  const pump = () => {
    if (state.closing) {
      for (const line of state.queue.splice(0)) refuseClosing(line, send);
      if (state.inFlight === 0 && !socket.writableEnded) socket.end();
      return;
    }
    while (state.queue.length > 0 && state.inFlight < opts.maxInFlight && !socket.writableNeedDrain && !socket.destroyed) {
      state.inFlight++;
      handleLine(state.queue.shift(), ctx, send)
        .catch((err) => report('error', { err }, 'control request failed unexpectedly'))
        .finally(() => {
          state.inFlight--;
          pump();
        });
    }
    // Back-pressure: stop reading while requests wait, so they wait in the kernel, not here.
    if (state.queue.length > 0 || socket.writableNeedDrain) socket.pause();
    else if (!state.ended) socket.resume();
    if (state.ended && state.queue.length === 0 && state.inFlight === 0 && !socket.writableEnded) socket.end();
  };
  socket.on('drain', pump);

  const reader = requestReader(socket, state, opts, send);
  socket.on('data', (chunk) => {
    reader.push(chunk);
    if (!state.discarding) pump();
  });
  // A client may half-close after its last request (`nc -U`): answer everything, then end.
  socket.on('end', () => {
    state.ended = true;
    reader.end();
    pump();
  });

  return {
    shutdown(graceMs) {
      if (state.closing) return;
      state.closing = true;
      pump();
      // Not unref'd: whoever awaits the server's close waits for this, at most graceMs.
      if (!socket.destroyed) {
        const timer = setTimeout(() => socket.destroy(), graceMs);
        socket.once('close', () => clearTimeout(timer));
      }
    },
  };
}

// An idle client is disconnected; one waiting on a long reload is not idle.
function watchSocket(socket, { opts, report }, busy) {
  socket.setTimeout(opts.idleTimeoutMs);
  socket.on('timeout', () => {
    if (busy()) return socket.setTimeout(opts.idleTimeoutMs);
    report('debug', {}, 'control client idle; disconnected');
    socket.destroy();
  });
  socket.on('error', (err) => report('debug', { err }, 'control client error'));
}

// One reply written, or the client dropped: one that does not read must not make us hold its
// replies past the backlog.
function replier(socket, opts, report) {
  return (reply) => {
    if (socket.destroyed || socket.writableEnded) return false;
    if (socket.writableLength > opts.maxWriteBacklog) {
      report('warn', { backlog: socket.writableLength }, 'control client does not read its replies; disconnected');
      socket.destroy();
      return false;
    }
    socket.write(frame(reply));
    return true;
  };
}

// Requests line by line into the queue; a line past maxLineBytes is refused with a reply.
function requestReader(socket, state, opts, send) {
  return lineReader({
    maxBytes: opts.maxLineBytes,
    onLine: (line) => state.queue.push(line),
    onOverflow: () => {
      state.queue.length = 0;
      send(errorReply(null, 'NODESUP_ERR_CONTROL', `bad request: line longer than ${opts.maxLineBytes} bytes; send one JSON request per line`));
      // End (the reply, then EOF) and swallow what it still sends: a client that reads gets the
      // reply and closes on the EOF. Cutting it off while it still writes would reset it, and its
      // write error can lose the reply before it is read. One that neither reads nor stops gets
      // cut off at DISCARD_MS.
      state.discarding = true;
      socket.end();
      setTimeout(() => socket.destroy(), DISCARD_MS).unref();
      socket.resume();
    },
  });
}

// A request that arrived while the server closes is answered, not dropped.
function refuseClosing(line, send) {
  let req = null;
  try {
    req = JSON.parse(line);
  } catch {
    return;
  }
  const id = req !== null && typeof req === 'object' && validId(req.id) ? req.id : null;
  if (id !== null) send(errorReply(id, 'NODESUP_ERR_NOT_RUNNING', 'the supervisor is stopping; it takes no more requests', versionOf(req)));
}

// Parse, check and run one request line; never throws.
async function handleLine(line, ctx, send) {
  if (line.trim() === '') return;
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    send(errorReply(null, 'NODESUP_ERR_CONTROL', 'bad request: not JSON'));
    return;
  }
  const bad = checkRequest(req);
  const id = req !== null && typeof req === 'object' && validId(req.id) ? req.id : null;
  // Replies speak the client's version, which it may check; a request too malformed to have one gets ours.
  const v = versionOf(req);
  if (bad) {
    send(errorReply(id, 'NODESUP_ERR_CONTROL', `bad request: ${bad}`, v));
    return;
  }
  let args = req.args ?? {};
  const { handlers, name, report } = ctx;

  if (req.op === 'ping') {
    send(okReply(id, { pong: true, pid: process.pid, name }, v));
    return;
  }
  const handler = handlers?.[req.op];
  if (typeof handler !== 'function') {
    send(errorReply(id, 'NODESUP_ERR_CONTROL', `op "${req.op}" is not supported by this supervisor; upgrade nodesup`, v));
    return;
  }
  try {
    args = checkArgs(req.op, args);
  } catch (err) {
    send(errorReply(id, err.code, `${req.op}: ${err.message}`, v));
    return;
  }
  // Progress lines only to a client that said it reads them: a version 1 client takes any line
  // with its id for the reply.
  const progress = v >= 2 && req.accept?.includes(FEATURES.PROGRESS) ? (step) => send(progressMessage(id, step, v)) : null;
  if (req.op === 'stop' && v < 2) {
    // Version 1: answer before stopping, as that client expects (once the handler runs, the primary
    // may exit at any moment). Version 2 answers when the stop is complete, with what it did.
    send(okReply(id, { stopping: true }, v));
    await new Promise((resolve) => setImmediate(resolve));
    try {
      await handler.call(handlers, args);
    } catch (err) {
      report('error', { err }, 'stop requested over the control socket failed');
    }
    return;
  }
  try {
    const result = await handler.call(handlers, args, { progress });
    send(okReply(id, result ?? null, v));
  } catch (err) {
    const coded = typeof err?.code === 'string' && Object.hasOwn(ERROR_CODES, err.code);
    if (!coded) report('warn', { err, op: req.op }, 'control handler failed');
    const message = firstLine(err instanceof Error ? err.message : err) || `${req.op} failed`;
    send(errorReply(id, coded ? err.code : 'NODESUP_ERR_CONTROL', message, v));
  }
}

function versionOf(req) {
  const v = req?.v;
  return Number.isInteger(v) && v >= MIN_CONTROL_VERSION && v <= CONTROL_VERSION ? v : CONTROL_VERSION;
}

function checkRequest(req) {
  if (req === null || typeof req !== 'object' || Array.isArray(req)) return 'expected a JSON object';
  if (!Number.isInteger(req.v) || req.v < MIN_CONTROL_VERSION || req.v > CONTROL_VERSION) {
    return `protocol version ${JSON.stringify(req.v)}, expected ${VERSIONS}; use a nodesup CLI that speaks one of them`;
  }
  if (req.accept !== undefined && (!Array.isArray(req.accept) || !req.accept.every((x) => typeof x === 'string'))) return 'accept must be an array of strings';
  if (!validId(req.id)) return 'missing id (a string or a number)';
  if (!OPS.includes(req.op)) return `unknown op ${JSON.stringify(req.op)}, expected one of ${OPS.join(', ')}`;
  if (req.args !== undefined && (req.args === null || typeof req.args !== 'object' || Array.isArray(req.args))) return 'args must be an object';
  return null;
}

// The slot is checked by the one rule the CLI and the supervisor use (src/slot.js), here for its
// shape; the supervisor checks it against its slot count. Throws a NODESUP_ERR_USAGE.
function checkArgs(op, args) {
  if (op !== 'recycle' && op !== 'inspect') return args;
  return { ...args, slot: parseSlot(args.slot) };
}

function validId(id) {
  return (typeof id === 'string' && id.length <= 256) || Number.isFinite(id);
}

function firstLine(value) {
  let s;
  try {
    s = String(value);
  } catch {
    s = ''; // thrown objects without a toString
  }
  const line = s.split('\n', 1)[0];
  return line.length > 1000 ? `${line.slice(0, 997)}...` : line;
}

