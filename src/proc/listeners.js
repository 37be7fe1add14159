// TCP listeners and socket ownership from /proc, for balance: 'reuse-port'. Node built-ins only:
// the agent imports this too.
import fs from 'node:fs';
import { readText } from './read-text.js';

const LISTEN = '0A';

/** net.ipv4.tcp_migrate_req (0 or 1), or null where it cannot be read. */
export function readMigrateReq() {
  try {
    const v = Number(readText('/proc/sys/net/ipv4/tcp_migrate_req').trim());
    return Number.isInteger(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * Every listening TCP socket in this network namespace.
 * @returns {{address: string, port: number, inode: number}[]}
 */
export function tcpListeners() {
  return [...readTable('/proc/net/tcp', 4), ...readTable('/proc/net/tcp6', 6)];
}

function readTable(file, family) {
  let text;
  try {
    text = readText(file);
  } catch {
    return [];
  }
  const out = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== LISTEN) continue;
    const [hexAddr, hexPort] = f[1].split(':');
    out.push({ address: family === 4 ? ipv4(hexAddr) : ipv6(hexAddr), port: parseInt(hexPort, 16), inode: Number(f[9]) });
  }
  return out;
}

// /proc/net/tcp prints the address as the kernel stores it: 32-bit words in host order.
function ipv4(hex) {
  const n = parseInt(hex, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].join('.');
}

function ipv6(hex) {
  const groups = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8).match(/../g).reverse().join('');
    groups.push(word.slice(0, 4), word.slice(4));
  }
  const parts = groups.map((g) => parseInt(g, 16).toString(16));
  if (parts.slice(0, 5).every((p) => p === '0') && parts[5] === 'ffff') return ipv4(swapWord(groups[6] + groups[7]));
  return compress(parts);
}

// RFC 5952's short form, as Node prints addresses: the longest run of zero groups becomes '::'.
function compress(parts) {
  let best = { at: -1, len: 1 };
  for (let i = 0; i < parts.length;) {
    let j = i;
    while (j < parts.length && parts[j] === '0') j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.at < 0) return parts.join(':');
  return `${parts.slice(0, best.at).join(':')}::${parts.slice(best.at + best.len).join(':')}`;
}

// An IPv4-mapped address's last word, read as ipv4() reads /proc/net/tcp's host-order words.
function swapWord(hex8) {
  return hex8.match(/../g).reverse().join('');
}

/** Socket inodes open in pid (its fd table), empty where it cannot be read. */
export function socketInodesOf(pid) {
  const out = new Set();
  let fds;
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const fd of fds) {
    let link;
    try {
      link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const m = /^socket:\[(\d+)\]$/.exec(link);
    if (m) out.add(Number(m[1]));
  }
  return out;
}

/** The pid that holds socket `inode`, among the processes this user may read, or null. */
export function holderOf(inode) {
  let pids;
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  for (const pid of pids) {
    if (socketInodesOf(pid).has(inode)) return Number(pid);
  }
  return null;
}
