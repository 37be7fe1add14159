// Connections a drain must close itself. A WebSocket (an upgraded socket) and an SSE stream (a
// response that never ends) hold a worker's server open: server.close() waits for them, and the
// worker is killed at killTimeout with its clients cut mid-stream. At a drain they are closed the
// way their protocol says, staggered so the clients reconnect to the other workers over a spread
// rather than all at once: a WebSocket gets a close frame (1001, going away), an SSE stream its end.
// engine.io's sessions (socket.io) are closed by engine.io itself: a pending long-poll is answered
// with its close packet, a WebSocket gets engine.io's close (engine-io.js).
// The app's own onDrain hooks run first and have GRACE_MS to close them their way.
import http from 'node:http';
import { engineIo, isEngineIo } from './engine-io.js';

const GRACE_MS = 500;
const LINGER_MS = 2000; // after our close frame, the client's close frame ends the socket; else we do
// A server's close frame: FIN + opcode 8, unmasked, 2-byte payload: status 1001 ("going away").
const CLOSE_1001 = Buffer.from([0x88, 0x02, 0x03, 0xe9]);

/**
 * @param {{onUpgrade?: (socket: import('node:net').Socket) => void, onEngine?: (engine: any) => void}} [o]
 * onUpgrade: told of every upgrade the app takes; onEngine: of each engine.io server (engine-io.js)
 */
export function longLived({ onUpgrade = () => {}, onEngine } = {}) {
  const sockets = new Set();
  const eioSockets = new WeakSet();
  // Every socket that carried a request, with when its latest request started: one close
  // listener per connection rather than one per request, which was most of what the agent cost a
  // keep-alive request. The response a socket is writing is Node's own socket._httpMessage (set
  // until the response finishes), read only when someone asks what is open.
  /** @type {Map<import('node:net').Socket, number>} */
  const carried = new Map();
  const engine = engineIo({ onEngine });

  // Only where the app handles upgrades: without an 'upgrade' listener Node destroys the socket,
  // and so it must stay.
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function emitTracked(event, req, socket) {
    if (event === 'upgrade' && socket && this.listenerCount('upgrade') > 0) {
      onUpgrade(socket);
      engine.note(req?.url);
      if (/^websocket$/i.test(req?.headers?.upgrade ?? '')) {
        if (isEngineIo(req?.url)) eioSockets.add(socket);
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
      }
    }
    return emit.apply(this, arguments);
  };

  function openResponses() {
    const out = [];
    for (const [socket, at] of carried) if (socket._httpMessage) out.push([socket._httpMessage, at]);
    return out;
  }

  let draining = false;
  const CLOSE = { socket: closeSocket, stream: endStream, session: (s) => engine.close(s) };
  const sweep = () => { for (const s of engine.sessions()) engine.close(s); };
  return {
    /** Every response while it is open (from the request diagnostics channel). */
    track(request, response) {
      engine.note(request.url);
      const socket = request.socket;
      const known = carried.size;
      carried.set(socket, Date.now());
      if (carried.size !== known) socket.once('close', () => carried.delete(socket));
      // A stream or session opened during the drain (a request on a kept-alive socket) is ended too.
      if (draining) setTimeout(() => { if (isOpenStream(response)) endStream(response); sweep(); }, GRACE_MS).unref();
    },
    /**
     * The responses not finished yet, each with when its request started (what holds a draining
     * worker, with held.js), as [response, startedAt] pairs. A pipelined request queued behind
     * the one its socket is answering is not among them until its turn.
     */
    open: openResponses,
    /** engine.io sessions not closed yet. */
    sessionsPending: () => engine.pending(),
    /** Close what is still open, spread over `spreadMs` after the app's grace. */
    closeAll(spreadMs) {
      draining = true;
      const streams = openResponses().map(([r]) => r).filter(isOpenStream);
      // engine.io's WebSockets are its sessions': closed by engine.io, not by a frame of ours.
      const raw = engine.known ? [...sockets].filter((s) => !eioSockets.has(s)) : [...sockets];
      const open = [
        ...engine.sessions().map((c) => ['session', c]), ...raw.map((c) => ['socket', c]), ...streams.map((c) => ['stream', c]),
      ];
      open.forEach(([kind, c], i) => {
        const at = GRACE_MS + Math.floor((i * spreadMs) / Math.max(1, open.length));
        setTimeout(() => CLOSE[kind](c), at).unref();
      });
      // Sessions that began meanwhile (a handshake on a kept-alive socket) go at the end.
      setTimeout(sweep, GRACE_MS + spreadMs).unref();
      return open.length;
    },
  };
}

const isOpenStream = (r) => r.headersSent && !r.writableEnded && isEventStream(r);

// The stream's proper end (the chunked terminator), then its socket: a client that reconnects at
// once must not send its next request down a kept-alive socket to this draining worker.
function endStream(res) {
  if (res.writableEnded) return;
  res.end(() => res.socket?.destroySoon?.());
}

// Headers given to writeHead() alone are not readable with getHeader(): then the head as sent says.
function isEventStream(res) {
  const type = res.getHeader('content-type');
  if (type !== undefined) return /^text\/event-stream/i.test(String(type));
  return typeof res._header === 'string' && /\r\ncontent-type:\s*text\/event-stream/i.test(res._header);
}

// The closing handshake: our close frame, the client's in reply, and the app's WebSocket library
// (which reads that reply) ends the socket. A client that never answers is cut after LINGER_MS.
function closeSocket(socket) {
  if (socket.destroyed || !socket.writable) return;
  socket.write(CLOSE_1001);
  setTimeout(() => { if (!socket.destroyed) socket.destroy(); }, LINGER_MS).unref();
}
