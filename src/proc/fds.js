// A process's fds by what they are, from /proc alone (no lsof): each fd's link, and the socket
// tables of its network namespace for what a socket inode is. The tables are the whole namespace's,
// not the process's: on a shared host /proc/net/tcp held 98,000 lines (14 MB, 157 ms for the
// kernel to produce, 180 ms to parse at once). So they are read off the event loop (the thread
// pool), parsed in slices with a turn of the loop between, and only for the worker's own inodes.
import fs from 'node:fs';
import { setImmediate as turn } from 'node:timers/promises';
import { countFdKinds, parseTcp, parseUnix } from '../core/sites/fd-kinds.js';

const SLICE = 512 * 1024; // characters of table parsed per turn of the event loop (~7 ms)

/** readlink of every fd of pid ("socket:[123]", "pipe:[9]", "/var/log/x"); null when unreadable. */
export function readFdLinks(pid) {
  const dir = `/proc/${pid}/fd`;
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return null;
  }
  const out = [];
  for (const n of names) {
    try { out.push(fs.readlinkSync(`${dir}/${n}`)); } catch { /* closed since the listing (the listing's own fd, too) */ }
  }
  return out;
}

async function parseSliced(file, parse, into, only) {
  let text;
  try {
    text = await fs.promises.readFile(file, 'latin1');
  } catch {
    return;
  }
  for (let at = 0; at < text.length;) {
    let end = text.indexOf('\n', Math.min(text.length, at + SLICE));
    if (end < 0) end = text.length;
    parse(text.slice(at, end), into, only);
    at = end + 1;
    if (at < text.length) await turn();
  }
}

/** pid's socket inodes `only` → {proto, local, remote, state} or {proto:'unix', path, state}. */
export async function readSockets(pid, only) {
  const sockets = new Map();
  await parseSliced(`/proc/${pid}/net/tcp`, parseTcp, sockets, only);
  await parseSliced(`/proc/${pid}/net/tcp6`, parseTcp, sockets, only);
  await parseSliced(`/proc/${pid}/net/unix`, parseUnix, sockets, only);
  return sockets;
}

/** pid's fds counted by what they are (core/sites/fd-kinds.js countFdKinds), or null off Linux. */
export async function fdKinds(pid) {
  const links = readFdLinks(pid);
  if (links === null) return null;
  const inodes = new Set();
  for (const l of links) if (l.startsWith('socket:[')) inodes.add(l.slice(8, -1));
  // Only sockets need the tables: a worker of files and pipes does not parse the namespace's sockets.
  return countFdKinds(links, inodes.size ? await readSockets(pid, inodes) : new Map());
}
