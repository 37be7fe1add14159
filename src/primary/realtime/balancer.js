// balance: 'sticky'. The primary accepts the app's connections itself and hands each one to a
// worker, as @socket.io/sticky's setupMaster does, with the app unchanged: its server.listen(port)
// is turned by the agent (worker/balance/sticky.js) into a LISTEN message, and the primary opens that port.
// A connection is read up to its first chunk, routed (core/sticky-route.js), and sent with those
// bytes over the worker's IPC channel. An engine.io session's requests go to the worker that holds
// it, even while that worker drains (a poll sent elsewhere gets HTTP 400 "Session ID unknown");
// anything else goes to its client's slot, to the worker serving there, never to a draining one.
// A replaced slot's clients thus reach the replacement.
import cluster from 'node:cluster';
import net from 'node:net';
import { STATES } from '../../constants.js';
import { KIND, message, isOurs } from '../../protocol.js';
import { routingFacts, pickSlot } from '../../core/sticky-route.js';

const FIRST_CHUNK_TIMEOUT_MS = 60_000; // Node's headersTimeout: a client that never speaks is dropped
// Connections waiting for their first bytes are swept this often rather than each given a timer:
// a timer per connection (set, refreshed on the read, cleared) is work round-robin does not do for
// a connection. A socket closed before it spoke is forgotten at the next sweep.
const SWEEP_MS = 5_000;
const ignore = () => {};

/**
 * @param {object} o
 * @param {{current: any}[]} o.slots  the supervisor's slots; `current` is the worker serving each
 * @param {string|null} o.header  lower-case header naming the client (a proxy in front), or null
 * @param {(level: string, fields: object, msg?: string) => void} o.report
 * @returns {{close: () => void, sessions: Map<string, import('node:cluster').Worker>}}
 */
export function startBalancer({ slots, header, report }) {
  /** @type {Map<string, net.Server>} one server per address the app listens on, `host:port` */
  const servers = new Map();
  /** @type {Map<string, import('node:cluster').Worker>} engine.io session id → the worker holding it */
  const sessions = new Map();
  let closed = false;

  const serving = (i) => {
    const rec = slots[i]?.current;
    return Boolean(rec && rec.state === STATES.READY && rec.worker.isConnected());
  };

  const route = (head, socket) => {
    const { sid, client } = routingFacts(head, header);
    const owner = sid ? sessions.get(sid) : undefined;
    if (owner?.isConnected()) return owner;
    const slot = pickSlot(client ?? socket.remoteAddress ?? '', slots.length, serving);
    return slot === null ? null : slots[slot].current.worker;
  };

  /** @type {Map<net.Socket, number>} connections not routed yet → accepted at (ms), oldest first */
  const waiting = new Map();
  const sweep = setInterval(() => {
    const expired = Date.now() - FIRST_CHUNK_TIMEOUT_MS;
    for (const [socket, at] of waiting) {
      if (socket.destroyed) waiting.delete(socket);
      else if (at <= expired) { waiting.delete(socket); socket.destroy(); }
    }
  }, SWEEP_MS).unref();

  const accept = (key) => (socket) => {
    socket.on('error', ignore);
    waiting.set(socket, Date.now());
    socket.once('data', (chunk) => {
      waiting.delete(socket);
      // Stop reading at once: bytes read here after the hand-off would be lost to the worker.
      socket.pause();
      socket._handle?.readStop?.();
      let data = chunk;
      for (let more; (more = socket.read()) !== null;) data = Buffer.concat([data, more]);
      // latin1 maps each byte to one code unit and back: the head travels as the string routing
      // read, which costs less to write into the IPC message than base64 and reads back exactly.
      const head = data.toString('latin1');
      const worker = route(head, socket);
      if (!worker) return socket.destroy();
      try {
        worker.process.send(message(KIND.CONNECTION, { key, head }), socket, { keepOpen: false }, (err) => { if (err) socket.destroy(); });
      } catch {
        socket.destroy();
      }
    });
    socket.resume();
  };

  const listen = (worker, { key, port, host, backlog }) => {
    if (closed || servers.has(key)) return;
    const server = net.createServer({ pauseOnConnect: true }, accept(key));
    servers.set(key, server);
    server.on('error', (err) => {
      servers.delete(key);
      report('error', { code: err.code, port, host: host ?? null, error: err.message },
        `balance 'sticky': cannot listen on ${host ?? '*'}:${port} (${err.code}); the app gets no connections there`);
    });
    server.listen({ port, host, backlog });
  };

  const onMessage = (worker) => (msg) => {
    if (!isOurs(msg)) return;
    if (msg.kind === KIND.LISTEN) listen(worker, msg);
    else if (msg.kind === KIND.SESSION) {
      if (msg.open) sessions.set(msg.sid, worker);
      else if (sessions.get(msg.sid) === worker) sessions.delete(msg.sid);
    }
  };
  const onFork = (worker) => worker.process.on('internalMessage', onMessage(worker));
  const onExit = (worker) => {
    for (const [sid, w] of sessions) if (w === worker) sessions.delete(sid);
  };
  cluster.on('fork', onFork);
  cluster.on('exit', onExit);

  return {
    sessions,
    /** Stop accepting (a stop of nodesup): connections already handed off finish in their workers. */
    close() {
      closed = true;
      clearInterval(sweep);
      for (const s of servers.values()) s.close();
      servers.clear();
      cluster.off('fork', onFork);
      cluster.off('exit', onExit);
    },
  };
}
