// A process's descendants from /proc, without spawning anything: each thread's `children` file
// lists the processes it forked (Linux ≥ 3.5 with CONFIG_PROC_CHILDREN, on in every distro kernel).
// Node built-ins only: the agent imports this too.
import fs from 'node:fs';
import { readText } from './read-text.js';

/** True when /proc exposes children lists; otherwise callers fall back to pidtree. */
export const hasChildrenFiles = (() => {
  try {
    fs.accessSync(`/proc/${process.pid}/task/${process.pid}/children`);
    return true;
  } catch {
    return false;
  }
})();

/**
 * Direct children of pid. Each thread has its own list; `allThreads` reads them all (a worker
 * thread may spawn too), otherwise only the main thread's, where libuv spawns for the event loop.
 */
export function childrenOf(pid, allThreads = true) {
  let tids;
  try {
    tids = allThreads ? fs.readdirSync(`/proc/${pid}/task`) : [String(pid)];
  } catch {
    return [];
  }
  const out = [];
  for (const tid of tids) {
    let text;
    try {
      text = readText(`/proc/${pid}/task/${tid}/children`);
    } catch {
      continue;
    }
    for (const part of text.split(' ')) {
      const n = Number(part);
      if (n > 0) out.push(n);
    }
  }
  return out;
}

/** Every descendant of pid, breadth first; [] when pid is gone or /proc says nothing. */
export function descendantsOf(pid, allThreads = true) {
  if (!hasChildrenFiles) return [];
  const out = [];
  const queue = childrenOf(pid, allThreads);
  const seen = new Set();
  while (queue.length) {
    const p = queue.shift();
    if (seen.has(p)) continue;
    seen.add(p);
    out.push(p);
    for (const c of childrenOf(p, allThreads)) queue.push(c);
  }
  return out;
}
