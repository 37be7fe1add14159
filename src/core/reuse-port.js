// balance: 'reuse-port'. Each worker listens on the app's port itself with SO_REUSEPORT and the
// kernel spreads new connections across the workers' sockets: no primary in a connection's path.
// Two things decide whether that keeps nodesup's promises, and both are read from the host:
// - the Node line must have `reusePort` on listen (22.12 and later);
// - a draining worker closes its own listening socket, and Linux resets the connections still
//   queued on a closed SO_REUSEPORT socket unless net.ipv4.tcp_migrate_req is 1 (Linux ≥ 5.14,
//   per network namespace, 0 by default). Round-robin drains without that loss, so it is the
//   fallback wherever the kernel would drop them.

/** First Node version whose listen() takes `reusePort`. */
export const REUSE_PORT_SINCE = Object.freeze([22, 12]);

/**
 * Why 'reuse-port' cannot keep its promises on this host, or null when it can.
 * @param {{node: string, migrateReq: number|null}} host
 *   node: process.versions.node; migrateReq: net.ipv4.tcp_migrate_req, null where it cannot be read
 * @returns {{reason: 'node'|'tcp_migrate_req', detail: string}|null}
 */
export function reusePortBlocker({ node, migrateReq }) {
  const [major, minor] = String(node).split('.').map(Number);
  const [m, n] = REUSE_PORT_SINCE;
  if (major < m || (major === m && minor < n)) {
    return { reason: 'node', detail: `Node ${node} has no reusePort (22.12 and later have it)` };
  }
  if (migrateReq !== 1) {
    const read = migrateReq === null ? 'cannot be read (Linux before 5.14, or no /proc)' : `is ${migrateReq}`;
    return { reason: 'tcp_migrate_req', detail: `net.ipv4.tcp_migrate_req ${read}, so the connections queued on a draining worker's socket would be reset` };
  }
  return null;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/**
 * Whether two listening addresses can take the same connection: the same address, or either one
 * every address (`::` takes IPv4 too unless it is IPv6-only, which is rare enough to count).
 * @param {string} a @param {string} b  as /proc/net/tcp gives them, or '' for "every address"
 */
export function sharesAddress(a, b) {
  return a === b || WILDCARDS.has(a) || WILDCARDS.has(b);
}

/**
 * The listening sockets on `port` that are not ours: a stale process of the same user that
 * listens with SO_REUSEPORT would silently take a share of the app's connections.
 * @param {{address: string, port: number, inode: number}[]} listeners  every TCP listener (/proc/net/tcp, tcp6)
 * @param {Set<number>} ours  socket inodes held by this supervisor's processes
 * @param {{port: number, host?: string}} target  what the app listens on
 */
export function strangersOn(listeners, ours, { port, host }) {
  return listeners.filter((l) => l.port === port && sharesAddress(l.address, host ?? '') && !ours.has(l.inode));
}
