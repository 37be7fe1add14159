// The worker's side of a drain, the same whoever asked (a recycle, a stop, a scale-down): the
// primary sends DRAIN, then disconnects the worker. From DRAIN on, every response tells its
// client to close, so no keep-alive socket is closed under a client that may be sending on it;
// the app's onDrain hooks run; the long-lived connections they left open are closed by their
// protocol, spread out (long-lived.js, engine-io.js). The planned disconnect that follows has
// closed every server and connection: the app's shutdown hooks run and the worker leaves.
import cluster from 'node:cluster';
import dc from 'node:diagnostics_channel';
import { hooks, runShutdownHooks } from '../hooks.js';
import { longLived } from './long-lived.js';
import { heldTable } from './held.js';
import { writeDrainSnapshot } from './snapshot.js';

const IDLE_GRACE_MS = 5000; // Node's default keepAliveTimeout: idle sockets get what they always got.
const LISTEN = 'tracing:net.server.listen:asyncStart'; // every net.Server's listen(), Node 20 to 26

/**
 * The worker's drain, ready before the app serves its first request.
 * @param {object} [o]
 * @param {(engine: any) => void} [o.onEngine]  told of each engine.io server the app runs
 * @param {{holdWhile(pending: () => boolean): void}|null} [o.balanced]  balance 'sticky': the worker's share of the routing
 * @param {() => void} [o.onStart]  what else stops when the drain begins
 */
export function workerDrain({ onEngine, balanced = null, onStart = () => {} } = {}) {
  const servers = new Set();
  let lastServer = null;
  // Servers are also learnt as they listen: one that has not served a request yet may already hold
  // connections (a load balancer's preconnects), and the idle grace closes those too. Serving is
  // still what counts for a server that never listens (an app handing it connections itself).
  dc.subscribe(LISTEN, ({ server }) => {
    if (!server || servers.has(server)) return;
    servers.add(server);
    server.once('close', () => {
      servers.delete(server);
      if (lastServer === server) lastServer = null;
    });
  });
  let draining = false;
  let snapshot = null;
  const held = heldTable(() => live.open());
  const live = longLived({ onUpgrade: (socket) => held.upgrade(socket), onEngine });
  return {
    /** What keeps the draining worker alive (held.js), for the primary's HELD. */
    held,
    get draining() { return draining; },
    /** The heap snapshot the primary asked this drain for ({file}), or null. */
    get snapshot() { return snapshot; },
    /** Each request as it starts (the http.server.request.start channel). */
    request(request, response, server) {
      // Nearly every app serves from one server: a comparison per request, not a Set lookup.
      if (server !== lastServer) {
        servers.add(server);
        lastServer = server;
      }
      live.track(request, response);
      // Draining: this response tells the client to close, so it never reuses a socket we close.
      if (draining) response.shouldKeepAlive = false;
    },
    /**
     * The primary's DRAIN; `closeWithinMs`: the spread over which long-lived connections close;
     * `snapshot` ({file}): a heap snapshot to write once every server has closed, before leaving.
     */
    start({ closeWithinMs = 2000, snapshot: ask = null } = {}) {
      if (draining) return;
      draining = true;
      snapshot = typeof ask?.file === 'string' ? ask : null;
      onStart();
      for (const server of servers) keepIdleSockets(server);
      for (const hook of hooks().onDrain) {
        try { hook(); } catch { /* the app's problem, not the drain's */ }
      }
      // WebSockets and SSE streams the hooks left open: closed by their protocol, spread out.
      live.closeAll(closeWithinMs);
      // Under balance 'sticky', until each engine.io session has had its close.
      balanced?.holdWhile(() => live.sessionsPending() > 0);
    },
  };
}

// cluster's disconnect calls server.close(), which closes idle keep-alive sockets at once and
// races a client about to send on one. Idle sockets instead get Node's usual idle timeout.
function keepIdleSockets(server) {
  const closeIdle = server.closeIdleConnections;
  if (typeof closeIdle !== 'function') return;
  server.closeIdleConnections = () => {};
  setTimeout(() => {
    delete server.closeIdleConnections;
    closeIdle.call(server);
    closeUnused(server);
  }, IDLE_GRACE_MS).unref();
}

// Node's idle list leaves out a connection that has not sent a byte (its headers timeout runs from
// the connect, 60 s by default): one a client opened and never used (a socket leak's, a
// preconnect, a health check's TCP probe) held the server open, and so the drain, to killTimeout.
// Past the same grace it carries no request to lose. Read through the server's own connection list
// (http.server.connections, the one closeAllConnections reads); without it, nothing is closed.
const CONNECTIONS = 'http.server.connections';
function closeUnused(server) {
  const key = Object.getOwnPropertySymbols(server).find((k) => k.description === CONNECTIONS);
  const list = key ? server[key] : null;
  if (typeof list?.all !== 'function') return;
  for (const { socket } of list.all()) {
    if (socket && socket.bytesRead === 0 && !socket._httpMessage) socket.destroy();
  }
}

/**
 * A planned disconnect (the primary drained us) has closed every server and connection: run the
 * app's shutdown hooks, write the heap snapshot the drain was asked for, and leave, rather than
 * wait for timers the app forgot to clear.
 * @param {{snapshot: {file:string}|null, held: {snapshot(): {openRequests:number}}, draining: boolean}} [drain]
 */
export function leaveOnPlannedDisconnect(drain = null) {
  process.on('disconnect', () => {
    if (!cluster.worker.exitedAfterDisconnect) return;
    runShutdownHooks().finally(() => {
      if (drain?.snapshot) writeDrainSnapshot(drain.snapshot, { openRequests: openRequests(drain), draining: drain.draining });
      process.exit(0);
    });
  });
}

function openRequests(drain) {
  try { return drain.held.snapshot().openRequests; } catch { return null; }
}
