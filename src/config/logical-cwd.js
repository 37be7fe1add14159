// The working directory as the user named it. `cd current && nodesup start server.js` leaves the
// process in the release `current` pointed at (process.cwd() is the physical path, the kernel's
// view), while the shell's $PWD keeps `/srv/app/current`. Resolving the script and the workers'
// cwd through the physical path pins that release forever: every later fork, a reload's included,
// would start it (PM2 has the same trap). Shells trust $PWD when it is absolute, has no `.` or `..`
// parts and names the directory they stand in; so do we.
import { statSync } from 'node:fs';
import { isAbsolute, normalize } from 'node:path';

/**
 * `pwd` when it names the same directory as `cwd` (same device and inode), else `cwd`.
 * @param {string} cwd  the physical working directory
 * @param {string|undefined} pwd  the shell's logical one ($PWD)
 */
export function pickLogicalCwd(cwd, pwd) {
  if (typeof pwd !== 'string' || !isAbsolute(pwd) || pwd === cwd) return cwd;
  const trimmed = pwd.length > 1 ? pwd.replace(/\/+$/, '') : pwd;
  if (normalize(trimmed) !== trimmed) return cwd;
  try {
    const a = statSync(trimmed);
    const b = statSync(cwd);
    return a.dev === b.dev && a.ino === b.ino ? trimmed : cwd;
  } catch {
    return cwd;
  }
}

// Settled once per physical directory: once `current` is switched to another release, $PWD names a
// different directory from the one we stand in, and the answer found at start must still hold.
const settled = new Map();

/** The logical working directory of this process, as it was when first asked. */
export function logicalCwd(cwd = process.cwd()) {
  if (!settled.has(cwd)) settled.set(cwd, pickLogicalCwd(cwd, process.env.PWD));
  return settled.get(cwd);
}
