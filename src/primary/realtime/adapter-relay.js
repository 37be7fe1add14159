// The primary's half of @socket.io/cluster-adapter, built in: what its setupPrimary() does, which
// an app under nodesup cannot call (the primary is nodesup's). Each worker's adapter sends its
// broadcasts, room changes and requests to the primary on the app's own IPC channel, tagged
// `source: '_sio_adapter'`; the primary forwards them to every other worker, and a response
// (it names its `requesterUid`) only to the worker that asked. Nothing of the app's is loaded here.
// Unlike setupPrimary(), which walks cluster.workers, draining workers get the messages too: their
// clients are still connected for the few seconds their drain closes them over.
import cluster from 'node:cluster';

const SOURCE = '_sio_adapter';
const ignore = () => {};

/**
 * Relay the adapter's messages between the pool's workers. Returns a function that stops it.
 * @param {{handles: () => {worker: import('node:cluster').Worker}[]}} pool
 */
export function relayAdapterMessages(pool) {
  /** @type {WeakMap<object, Set<string>>} the adapter uids (one per namespace) of each worker */
  const uids = new WeakMap();
  const onMessage = (from, msg) => {
    if (msg === null || typeof msg !== 'object' || msg.source !== SOURCE) return;
    let own = uids.get(from);
    if (!own) uids.set(from, (own = new Set()));
    if (typeof msg.uid === 'string') own.add(msg.uid);
    const targets = pool.records().map((rec) => rec.worker).filter((w) => w !== from && w.isConnected());
    const requester = msg.requesterUid === undefined ? null : targets.find((w) => uids.get(w)?.has(msg.requesterUid));
    for (const w of requester ? [requester] : targets) {
      try { w.send(msg, null, ignore); } catch { /* it is exiting: its exit is reported elsewhere */ }
    }
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}
