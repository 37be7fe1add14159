// Where control sockets live: one private directory per user, one `<name>.sock` per supervisor.
// The directory, not the socket, is the security boundary: 0700 and ours, or we refuse to use it.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NodesupError } from '../errors.js';

/** Longest usable Unix socket path: sun_path is 108 bytes on Linux, 104 on macOS/BSD, NUL included. */
export const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;
const SUFFIX = '.sock';

/** The run dir for this user: NODESUP_RUN_DIR, else $XDG_RUNTIME_DIR/nodesup, else <tmpdir>/nodesup-<uid>. */
export function runDir(env = process.env) {
  if (env.NODESUP_RUN_DIR) return path.resolve(env.NODESUP_RUN_DIR);
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'nodesup');
  return path.join(os.tmpdir(), `nodesup-${uid() ?? os.userInfo().username}`);
}

/** Create the run dir (0700), or check an existing one is ours and tighten its mode. */
export function ensureRunDir(dir) {
  // Parents get the default mode: only the last component has to be private.
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (err.code !== 'EEXIST') throw controlError(`cannot create run dir ${dir}: ${err.code}; set NODESUP_RUN_DIR to a writable directory`, err);
  }
  const st = checkRunDir(dir);
  // A lax umask may have widened a dir we just made; an older one may have been chmod'ed by hand.
  if ((st.mode & 0o777) !== 0o700) fs.chmodSync(dir, 0o700);
  return dir;
}

/** Check that an existing run dir is a directory we own; returns its stats, or null when it is missing. */
export function checkRunDir(dir) {
  let link;
  try {
    link = fs.lstatSync(dir);
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw controlError(`cannot read run dir ${dir}: ${err.code}; set NODESUP_RUN_DIR to a directory you own`, err);
  }
  // Someone else's symlink in /tmp could point our sockets at a dir they control.
  if (link.isSymbolicLink() && !ownedByUs(link)) refuse(dir, 'is a symlink owned by another user');
  const st = link.isSymbolicLink() ? fs.statSync(dir) : link;
  if (!st.isDirectory()) refuse(dir, 'is not a directory');
  if (!ownedByUs(st)) refuse(dir, `is owned by uid ${st.uid}, not by us (uid ${uid()})`);
  return st;
}

/** The socket path of supervisor `name`; throws when the name is unusable or the path too long. */
export function socketPath(dir, name) {
  // No leading "." (a hidden socket) or "-" (`nodesup status -x` would read as a flag).
  if (typeof name !== 'string' || !/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(name)) {
    throw new NodesupError('NODESUP_ERR_USAGE', `supervisor name ${JSON.stringify(name)} cannot name a socket: use letters, digits, ".", "_" or "-", starting with a letter, digit or "_"`);
  }
  const p = path.join(dir, name + SUFFIX);
  const bytes = Buffer.byteLength(p);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw controlError(`control socket path ${p} is ${bytes} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit of Unix sockets; set NODESUP_RUN_DIR to a shorter path or use a shorter --name`);
  }
  return p;
}

/** Names of the supervisors with a socket in `dir` (live or stale), sorted; [] when dir is missing. */
export function listSupervisors(dir) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return [];
    throw controlError(`cannot list run dir ${dir}: ${err.code}; set NODESUP_RUN_DIR to a directory you own`, err);
  }
  return entries
    .filter((e) => e.isSocket() && e.name.endsWith(SUFFIX) && e.name.length > SUFFIX.length)
    .map((e) => e.name.slice(0, -SUFFIX.length))
    .sort();
}

function uid() {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

function ownedByUs(st) {
  const me = uid();
  return me === null || st.uid === me;
}

function refuse(dir, why) {
  throw controlError(`run dir ${dir} ${why}; remove it or set NODESUP_RUN_DIR to a private directory you own`);
}

function controlError(message, cause) {
  return new NodesupError('NODESUP_ERR_CONTROL', message, { cause });
}
