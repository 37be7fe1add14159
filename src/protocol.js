// The IPC contract between the primary and the agent inside each worker. Messages ride the
// cluster channel with a `cmd` starting with NODE_: Node routes those to 'internalMessage', so the
// app's own process.on('message') never sees them and cluster ignores any cmd but NODE_CLUSTER.

export const CMD = 'NODE_NODESUP';
export const PROTOCOL_VERSION = 1;

/** Message kinds. Requests go primary → agent, replies come back with the same id. */
export const KIND = Object.freeze({
  HELLO: 'hello',       // agent → primary, once loaded: pid, node, and the Sample's constants (src/sample/fields.js)
  READY: 'ready',       // agent → primary, app called ready() from 'nodesup/worker'
  STATS: 'stats',       // request / reply: one sample of the worker's own view (its polled fields)
  GC: 'gc',             // request / reply: run a full GC, reply with stats after it
  CONFIRM: 'confirm',   // request / reply: heap after a full GC and retained sites (a suspected leak)
  SITES: 'sites',       // request / reply: retained sites now, no GC ({start: true}: start the profiler; {buffers: true}: the Buffer sampler's too)
  DRAIN: 'drain',       // primary → agent: stop keep-alive, run onShutdown hooks
  HEAP_SNAPSHOT: 'heap-snapshot', // request / reply: write a heap snapshot to a path
  LISTEN: 'listen',     // agent → primary (balance: 'sticky'): the app listens on this port; the primary takes it
  CONNECTION: 'connection', // primary → agent, with a socket: a connection for the app's server, with its first bytes
  SESSION: 'session',   // agent → primary (balance: 'sticky'): an engine.io session opened or closed here
  ENGINE: 'engine',     // agent → primary, once: the app serves engine.io (socket.io), and whether it long-polls
  HELD: 'held',         // request / reply: what keeps a draining worker alive (open requests, upgraded sockets)
  REPLY: 'reply',
});

/** True when a message received on 'internalMessage' is one of ours. */
export function isOurs(msg) {
  return msg !== null && typeof msg === 'object' && msg.cmd === CMD;
}

/** Build a message. */
export function message(kind, fields = {}) {
  return { cmd: CMD, v: PROTOCOL_VERSION, kind, ...fields };
}
