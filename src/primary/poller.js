// One poll tick: every worker's agent is asked at once, /proc is read while the replies travel,
// and one Sample per worker comes out. Nothing is logged here; decisions are the supervisor's.
import { KIND } from '../protocol.js';
import { readMemory, countFds } from '../proc/memory.js';
import { descendantsOf } from '../proc/descendants.js';
import { rememberTree } from './kill-tree.js';

/** @typedef {import('../types.js').Sample} Sample */

/**
 * Sample every handle; pushes each sample into the handle's window and returns them.
 * @param {import('./pool.js').Pool} pool
 * @param {import('./pool.js').WorkerHandle[]} handles
 * @param {{timeoutMs:number, now:() => number}} o
 */
export async function pollOnce(pool, handles, { timeoutMs, now }) {
  const replies = handles.map((h) => pool.request(h, KIND.STATS, {}, timeoutMs));
  const procs = handles.map((h) => readTree(h));
  const stats = await Promise.all(replies);
  const t = now();
  return handles.map((h, i) => {
    const sample = buildSample(t, h.pid, procs[i], stats[i]);
    h.window.push(sample);
    return sample;
  });
}

/** One worker's /proc view: its own memory, its tree's, fds; remembers the tree for killing. */
export function readTree(h) {
  const own = readMemory(h.pid);
  const kids = descendantsOf(h.pid);
  let childrenRss = 0;
  let childrenPss = 0;
  let pssKnown = true;
  for (const pid of kids) {
    const m = readMemory(pid);
    if (!m) continue; // exited between the listing and the read
    childrenRss += m.rss;
    if (m.pss === null) pssKnown = false;
    else childrenPss += m.pss;
  }
  if (kids.length || h.tree.length > 1) h.tree = rememberTree([h.pid, ...kids]);
  return { own, children: kids.length, childrenRss, childrenPss: pssKnown ? childrenPss : null, fds: countFds(h.pid) };
}

/** Combine /proc and agent views into a Sample; what was not measured stays null. */
export function buildSample(t, pid, proc, stats) {
  const rss = proc.own?.rss ?? stats?.rss ?? null;
  const heapTotal = stats?.heapTotal ?? null;
  const external = stats?.external ?? null;
  return {
    t,
    pid,
    rss,
    pss: proc.own?.pss ?? null,
    anon: proc.own?.anon ?? null,
    treeRss: rss === null ? null : rss + proc.childrenRss,
    treePss: proc.own?.pss == null || proc.childrenPss === null ? null : proc.own.pss + proc.childrenPss,
    childrenRss: proc.own ? proc.childrenRss : null,
    children: proc.own ? proc.children : null,
    fds: proc.fds,
    heapUsed: stats?.heapUsed ?? null,
    heapTotal,
    heapLimit: stats?.heapLimit ?? null,
    external,
    arrayBuffers: stats?.arrayBuffers ?? null,
    // external already holds arrayBuffers (DESIGN §2), so it is not subtracted twice.
    native: rss === null || heapTotal === null || external === null ? null : Math.max(0, rss - heapTotal - external),
    newSpace: stats?.newSpace ?? null,
    gcCount: stats?.gcCount ?? null,
    gcMs: stats?.gcMs ?? null,
    majorGcCount: stats?.majorGcCount ?? null,
    elu: stats?.elu ?? null,
    delayP50: stats?.delayP50 ?? null,
    delayP99: stats?.delayP99 ?? null,
    requests: stats?.requests ?? null,
    handles: stats?.handles ?? null,
    agent: stats !== null,
  };
}
