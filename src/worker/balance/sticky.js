// The worker's half of balance: 'sticky' (the primary's is src/primary/realtime/balancer.js). The app calls
// server.listen(port) as always; the agent tells the primary, which opens that port itself, and
// lets the server listen through cluster on an ephemeral loopback port nobody connects to: the
// worker becomes ready and is drained the way cluster does it. Connections then come over IPC
// with their first bytes, and are given to the app's server as if it had accepted them.
import net from 'node:net';
import { KIND, message, isOurs } from '../../protocol.js';
import { tcpTarget, listenCallback } from './listen-target.js';
import { toPrimary } from '../to-primary.js';

/** True when the primary balances this worker's connections itself. */
export const isSticky = () => process.env.NODESUP_BALANCE === 'sticky';

const HOLD_CHECK_MS = 100;

/** Take over the app's TCP listens and serve the connections the primary hands over. */
export function stickyWorker() {
  /** @type {Map<string, net.Server>} */
  const servers = new Map();
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function stickyListen(...args) {
    const target = tcpTarget(args);
    if (!target) return listen.apply(this, args);
    const key = `${target.host ?? ''}:${target.port}`;
    servers.set(key, this);
    toPrimary(message(KIND.LISTEN, { key, port: target.port, host: target.host, backlog: target.backlog }));
    return listen.call(this, { port: 0, host: '127.0.0.1' }, listenCallback(args));
  };

  process.on('internalMessage', (msg, socket) => {
    if (!isOurs(msg) || msg.kind !== KIND.CONNECTION || !socket) return;
    const server = servers.get(msg.key);
    if (!server) return socket.destroy();
    // Counted as the server's own, as cluster's round-robin does: a drain's server.close() then
    // waits for this connection, and Node's socket teardown uncounts it.
    server._connections++;
    socket.server = server;
    socket._server = server;
    server.emit('connection', socket);
    if (msg.head) socket.emit('data', Buffer.from(msg.head, 'latin1'));
    socket.resume();
  });

  return {
    /**
     * Keep the servers from closing while `busy()` holds. A long-polling session between two polls
     * has no connection open: the drain would close the server, the worker would leave, and the
     * poll that was to fetch the session's close packet would meet another worker (HTTP 400). The
     * primary sends a session's requests here until this worker's IPC channel closes, which cluster
     * does once the servers are closed.
     */
    holdWhile(busy) {
      const held = [...servers.values()];
      for (const s of held) s._connections++;
      const check = () => {
        if (busy()) return setTimeout(check, HOLD_CHECK_MS).unref();
        for (const s of held) {
          s._connections--;
          s._emitCloseIfDrained?.();
        }
      };
      check();
    },
  };
}

/** Tell the primary of an engine.io session opening or closing here. */
export function reportSession(sid, open) {
  toPrimary(message(KIND.SESSION, { sid, open }));
}
