// The worker's half of balance: 'reuse-port' (the host check is src/core/reuse-port.js). The app
// calls server.listen(port) as always; the agent makes that listen the worker's own, with
// SO_REUSEPORT, and the kernel spreads new connections across the workers' sockets with no primary
// in their path. cluster no longer sees these servers, so the agent does what cluster did for them:
// - the primary's 'listening' never comes: the worker says it is ready once its server listens;
// - cluster's disconnect closes only the handles it gave out: the agent closes these servers too,
//   and keeps the IPC channel open until they have closed, as cluster does with its own, so a
//   draining worker stays reachable (what holds it, its snapshot) until its last request is done.
import cluster from 'node:cluster';
import net from 'node:net';
import { KIND, message } from '../../protocol.js';
import { strangersOn } from '../../core/reuse-port.js';
import { tcpListeners, socketInodesOf, holderOf } from '../../proc/listeners.js';
import { descendantsOf } from '../../proc/descendants.js';
import { tcpTarget, listenCallback } from './listen-target.js';
import { toPrimary } from '../to-primary.js';

const STRANGER_LOOKS = 4;
const STRANGER_RECHECK_MS = 250;

/** True when the workers listen on the app's port themselves. */
export const isReusePort = () => process.env.NODESUP_BALANCE === 'reuse-port';

/** Take over the app's TCP listens: each becomes this worker's own, with SO_REUSEPORT. */
export function reusePortWorker() {
  /** @type {Set<net.Server>} */
  const open = new Set();
  let saidReady = false;
  const listen = net.Server.prototype.listen;
  const ownListen = (server, args, target) => {
    open.add(server);
    server.once('close', () => open.delete(server));
    server.once('listening', () => {
      if (saidReady || !process.connected) return;
      saidReady = true;
      toPrimary(message(KIND.READY, { listening: true }));
    });
    const { port, host, backlog, options } = target;
    return listen.call(server, { ...options, port, host, backlog, reusePort: true }, listenCallback(args));
  };
  net.Server.prototype.listen = function reusePortListen(...args) {
    const target = tcpTarget(args);
    if (!target) return listen.apply(this, args);
    if (!strangerOn(target)) return ownListen(this, args, target);
    // A sibling that is exiting can show its socket a moment after its fds are gone: a stranger is
    // one that is still there when looked at again.
    let looks = 1;
    const again = () => {
      const stranger = strangerOn(target);
      if (!stranger) return ownListen(this, args, target);
      if (++looks < STRANGER_LOOKS) return setTimeout(again, STRANGER_RECHECK_MS);
      this.emit('error', heldElsewhere(target, stranger));
    };
    setTimeout(again, STRANGER_RECHECK_MS);
    return this;
  };
  holdChannelUntilClosed(open);
}

// cluster's disconnect closes its own handles, then the channel: ours close there too, and the
// channel waits for them.
function holdChannelUntilClosed(open) {
  const disconnect = process.disconnect;
  if (typeof disconnect !== 'function') return;
  process.disconnect = function disconnectAfterServers(...args) {
    if (!cluster.worker?.exitedAfterDisconnect || open.size === 0) return disconnect.apply(this, args);
    let left = open.size;
    const done = () => { if (--left === 0 && process.connected) disconnect.apply(this, args); };
    for (const server of [...open]) {
      if (server.listening) server.close(done);
      else done();
    }
  };
}

// A listener on the app's port that no process of this supervisor holds: the first worker finds
// none of its own; later ones find their siblings', which are ours.
function strangerOn(target) {
  const listeners = tcpListeners();
  if (!listeners.some((l) => l.port === target.port)) return null;
  const ours = new Set();
  for (const pid of [process.ppid, ...descendantsOf(process.ppid)]) {
    for (const inode of socketInodesOf(pid)) ours.add(inode);
  }
  const [first] = strangersOn(listeners, ours, target);
  return first ? { ...first, pid: holderOf(first.inode) } : null;
}

// The error a bare server gets when its port is taken, with who holds it and why it matters here.
function heldElsewhere({ port, host }, stranger) {
  const who = stranger.pid ? `pid ${stranger.pid}` : 'a process this user cannot see';
  const err = new Error(`listen EADDRINUSE: ${host ?? '*'}:${port} is held by ${who} (${stranger.address}:${stranger.port}), not by nodesup: ` +
    `balance 'reuse-port' would silently share its connections with it; stop it, or choose another port`);
  Object.assign(err, { code: 'EADDRINUSE', errno: -98, syscall: 'listen', address: host, port });
  return err;
}
