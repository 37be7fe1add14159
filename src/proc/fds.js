// A process's fds by what they are, from /proc alone (no lsof): each fd's link, and the socket
// tables of its network namespace for what a socket inode is. Read only when fds grow (the agent
// decides when), since it costs a readlink per fd and a parse of every socket in the namespace.
import fs from 'node:fs';
import { countFdKinds, parseTcp, parseUnix } from '../core/fd-kinds.js';

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

/** Socket inode → {proto, local, remote, state} or {proto:'unix', path, state}, for pid's namespace. */
export function readSockets(pid) {
  const read = (name) => {
    try { return fs.readFileSync(`/proc/${pid}/net/${name}`, 'latin1'); } catch { return ''; }
  };
  const sockets = parseTcp(read('tcp'));
  parseTcp(read('tcp6'), sockets);
  parseUnix(read('unix'), sockets);
  return sockets;
}

/** pid's fds counted by what they are (core/fd-kinds.js countFdKinds), or null off Linux. */
export function fdKinds(pid) {
  const links = readFdLinks(pid);
  if (links === null) return null;
  // Only sockets need the tables: a worker of files and pipes does not parse the namespace's sockets.
  return countFdKinds(links, links.some((l) => l.startsWith('socket:')) ? readSockets(pid) : new Map());
}
