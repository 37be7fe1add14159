// What a worker's fds are, from /proc text: each fd's link (/proc/<pid>/fd/N → "socket:[ino]",
// "pipe:[ino]", a path) and the socket tables (/proc/<pid>/net/tcp, tcp6, unix: inode → addresses
// and state). An fd leak is then named by what leaks: TCP to one service, files by path, pipes.
// This sees what Node's active-resources list leaves out: idle keep-alive sockets are unref'd and
// not in process.getActiveResourcesInfo(). Pure: text in, counts by kind out. A kind's label
// ("TCP to 127.0.0.1:4000, ESTABLISHED") is its key: the agent's counts travel keyed by it, and
// report/resource-words.js says the rates.

const TCP_STATES = {
  '01': 'ESTABLISHED', '02': 'SYN_SENT', '03': 'SYN_RECV', '04': 'FIN_WAIT1', '05': 'FIN_WAIT2', '06': 'TIME_WAIT',
  '07': 'CLOSE', '08': 'CLOSE_WAIT', '09': 'LAST_ACK', '0A': 'LISTEN', '0B': 'CLOSING',
};

/** "0100007F:0FA0" (IPv4) or 32 hex digits (IPv6), as /proc prints them, → "127.0.0.1:4000" / "[::1]:4000". */
export function decodeAddress(hex) {
  const [addr, port] = hex.split(':');
  const p = parseInt(port, 16);
  if (addr.length === 8) return `${ipv4(addr)}:${p}`;
  // Four 32-bit words, each in host (little-endian) order.
  const bytes = [];
  for (let w = 0; w < 4; w++) for (let b = 3; b >= 0; b--) bytes.push(addr.slice(w * 8 + b * 2, w * 8 + b * 2 + 2));
  const hexs = bytes.join('').toLowerCase();
  if (hexs.startsWith('00000000000000000000ffff')) return `${ipv4Bytes(bytes.slice(12))}:${p}`;
  const groups = [];
  for (let i = 0; i < 32; i += 4) groups.push(hexs.slice(i, i + 4).replace(/^0+(?=.)/, ''));
  return `[${compress(groups)}]:${p}`;
}

const ipv4 = (word) => ipv4Bytes([word.slice(6, 8), word.slice(4, 6), word.slice(2, 4), word.slice(0, 2)]);
const ipv4Bytes = (b) => b.map((x) => parseInt(x, 16)).join('.');

// The longest run of zero groups becomes "::" (RFC 5952, enough for reading).
function compress(groups) {
  let best = [-1, 0];
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best[1]) best = [i, j - i];
    i = j;
  }
  if (best[1] < 2) return groups.join(':');
  return `${groups.slice(0, best[0]).join(':')}::${groups.slice(best[0] + best[1]).join(':')}`;
}

/**
 * Sockets of /proc/<pid>/net/tcp or tcp6 by inode; with `only`, just those inodes (the table is the
 * whole network namespace's: 98,000 lines on one shared host, where the worker owns a few hundred).
 * Lines without an inode (the header, a partial line) are skipped, so a caller may feed slices.
 * @returns {Map<string, {proto:'tcp', local:string, remote:string, state:string}>}
 */
export function parseTcp(text, into = new Map(), only = null) {
  for (const line of (text ?? '').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || !/^\d+$/.test(f[9]) || (only && !only.has(f[9]))) continue;
    into.set(f[9], { proto: 'tcp', local: decodeAddress(f[1]), remote: decodeAddress(f[2]), state: TCP_STATES[f[3]] ?? f[3] });
  }
  return into;
}

/**
 * Sockets of /proc/<pid>/net/unix by inode: its path, if bound (the peer of a connected socket has none).
 * @returns {Map<string, {proto:'unix', path:string|null, state:string}>}
 */
export function parseUnix(text, into = new Map(), only = null) {
  for (const line of (text ?? '').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 7 || !/^\d+$/.test(f[6]) || (only && !only.has(f[6]))) continue;
    into.set(f[6], { proto: 'unix', path: f[7] ?? null, state: f[5] === '03' ? 'CONNECTED' : f[5] === '01' ? 'UNCONNECTED' : f[5] });
  }
  return into;
}

/**
 * Count fds by what they are: `{ "TCP to 127.0.0.1:4000, ESTABLISHED": 12, "file /var/log/x": 3, "pipe": 2, … }`.
 * A TCP socket is grouped by its remote end ("to", a connection the worker opened) or by its local
 * end ("on", connections accepted on one port), whichever more of them share.
 * @param {string[]} links  readlink of every fd
 * @param {Map<string, object>} sockets  parseTcp and parseUnix, merged
 */
export function countFdKinds(links, sockets) {
  const tcp = [];
  const out = {};
  const bump = (k) => { out[k] = (out[k] ?? 0) + 1; };
  for (const link of links) {
    const m = /^(socket|pipe|anon_inode):\[?([^\]]*)\]?$/.exec(link);
    if (!m) { bump(link.startsWith('/') ? `file ${link.replace(/ \(deleted\)$/, '')}` : link); continue; }
    if (m[1] === 'pipe') { bump('pipe'); continue; }
    if (m[1] === 'anon_inode') { bump(m[2]); continue; } // eventpoll, eventfd, timerfd: libuv's own
    const s = sockets.get(m[2]);
    if (!s) bump('socket (other)');
    else if (s.proto === 'unix') bump(s.path ? `unix ${s.path}` : `unix, ${s.state}`);
    else if (s.state === 'LISTEN') bump(`TCP listening on ${s.local}`);
    else tcp.push(s);
  }
  const by = (key) => {
    const n = new Map();
    for (const s of tcp) n.set(key(s), (n.get(key(s)) ?? 0) + 1);
    return n;
  };
  const to = by((s) => `${s.remote}|${s.state}`);
  const on = by((s) => `${s.local}|${s.state}`);
  for (const s of tcp) {
    const byRemote = to.get(`${s.remote}|${s.state}`) >= on.get(`${s.local}|${s.state}`);
    bump(byRemote ? `TCP to ${s.remote}, ${s.state}` : `TCP on ${s.local}, ${s.state}`);
  }
  return out;
}

export const FD_KIND_THRESHOLDS = Object.freeze({
  top: 3, // kinds named
  minRise: 10, // a kind must have grown by this many to be named
});

/**
 * The kinds that grew between two counts, fastest first: [{what, count, perSec}].
 * @param {{t:number, kinds:Record<string, number>}} older @param {{t:number, kinds:Record<string, number>}} newer
 */
export function growingFdKinds(older, newer, { top = FD_KIND_THRESHOLDS.top, minRise = FD_KIND_THRESHOLDS.minRise } = {}) {
  if (!older?.kinds || !newer?.kinds || !(newer.t > older.t)) return [];
  const s = (newer.t - older.t) / 1000;
  const out = [];
  for (const [what, count] of Object.entries(newer.kinds)) {
    const rise = count - (older.kinds[what] ?? 0);
    if (rise >= minRise) out.push({ what, count, perSec: Math.round((rise / s) * 10) / 10 });
  }
  // On a tie the connections the worker opened come first: they name the service it leaks toward.
  return out.sort((a, b) => b.perSec - a.perSec || outgoing(b) - outgoing(a)).slice(0, top);
}

const outgoing = (k) => (k.what.startsWith('TCP to ') ? 1 : 0);
