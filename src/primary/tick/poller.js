// Collect, the first step of a tick: every worker's agent is asked at once, and one Sample per
// worker comes out into its window. Nothing is decided or logged here. What the probe remembers
// between polls of a worker (poll count, shared-memory base) is on the worker's record, written
// by the pool.
// The agent's reply carries what the worker can read of itself (RSS, fds, its children, and on a
// full read its smaps_rollup and every thread's children), so /proc is read here only for what it
// cannot: a worker's children, and every figure of a worker whose agent did not answer. The
// primary is one process for every worker; a read per worker per poll is what made it cost a
// core's 5 % at 128 workers.
import { KIND } from '../../protocol.js';
import { readMemory, readRss, countFds } from '../../proc/memory.js';
import { descendantsOf } from '../../proc/descendants.js';
import { rememberTree } from '../lifecycle/kill-tree.js';

/** @typedef {import('../../types.js').Sample} Sample */

/**
 * Sample every handle; pushes each sample into the handle's window and returns them.
 * @param {import('../lifecycle/pool.js').Pool} pool
 * @param {import('../lifecycle/pool.js').WorkerHandle[]} handles
 * @param {{timeoutMs:number, now:() => number}} o
 */
export async function pollOnce(pool, handles, { timeoutMs, now }) {
  const full = handles.map((h) => {
    pool.notePoll(h);
    return isFullRead(h.probe);
  });
  const stats = await Promise.all(handles.map((h, i) => pool.request(h, KIND.STATS, full[i] ? { full: true } : {}, timeoutMs)));
  const t = now();
  return handles.map((h, i) => {
    const proc = readTree(pool, h, full[i], stats[i]);
    return record(pool, h, buildSample(t, h.pid, proc, stats[i]), proc);
  });
}

/**
 * One sample of h now, from /proc and agent stats already in hand (a GC's reply): for the steps
 * that must see a worker between ticks, so they need not sample for themselves.
 */
export function sampleOne(pool, h, stats, { full, now }) {
  const proc = readTree(pool, h, full, stats);
  return record(pool, h, buildSample(now(), h.pid, proc, stats), proc);
}

/** The sampler the recycler reads a worker through between ticks. */
export function sampler(pool, now) {
  return {
    /** One sample of h now, kept in its window, with agent stats already in hand. */
    sample: (h, stats, { full }) => sampleOne(pool, h, stats, { full, now }),
    /** h's tree RSS now, kept nowhere. */
    treeRss: (h) => treeRssNow(h),
  };
}

/** h's process tree RSS now, from statm (no sample kept): for watching a crossing closely. */
export function treeRssNow(h) {
  const proc = readTree(null, h, false);
  return proc.own ? proc.own.rss + proc.childrenRss : null;
}

function record(pool, h, sample, proc) {
  pool.record(h, sample, proc.tree);
  return sample;
}

// A full read (smaps_rollup of every process, every thread's children list) every DETAIL_EVERY
// polls of a worker; statm and the main thread's list in between. Workers are polled from their
// own spawn on, so their full reads fall on different ticks.
const DETAIL_EVERY = 10;

/** True when a worker's poll (counted already) gets a full read: one in DETAIL_EVERY, and until a full read has given a base. */
export function isFullRead({ polls, pssBase }) {
  return polls % DETAIL_EVERY === 1 || !pssBase;
}

/**
 * One worker's /proc view: its own memory, its tree's, fds, and (when it has children) the tree
 * to remember for killing. `stats`, the agent's reply if it came, stands in for the reads it covers.
 * Between full reads PSS and anonymous memory are estimated as RSS minus what was shared (or
 * not anonymous) at the last full read: what a process grows is private, anonymous memory.
 * @param {import('../lifecycle/pool.js').Pool|null} pool  writes what a full read learned (null: a look that keeps nothing)
 * @param {import('../lifecycle/pool.js').WorkerHandle} h
 * @param {boolean} [detail]
 * @param {{rss?:number, fds?:number|null, childPids?:number[], allThreads?:boolean,
 *   memory?:{rss:number, pss:number|null, anon:number|null}|null}|null} [stats]
 */
export function readTree(pool, h, detail = true, stats = null) {
  // The children come with the reply: the main thread's, and on a full read every thread's (a
  // worker_thread may spawn too). A tree known from before is walked again to see it go.
  const listed = Array.isArray(stats?.childPids) && (!detail || stats.allThreads === true);
  const walk = !listed || stats.childPids.length > 0 || h.tree.length > 1;
  const kids = walk ? descendantsOf(h.pid, detail) : [];
  const fromAgent = detail
    ? (stats?.memory?.rss == null ? null : { ...stats.memory })
    : (stats?.rss == null ? null : { rss: stats.rss, pss: null, anon: null });
  const read = detail ? readMemory : (pid) => { const rss = readRss(pid); return rss === null ? null : { rss, pss: null, anon: null }; };
  const own = fromAgent ?? read(h.pid);
  let childrenRss = 0;
  let childrenPss = 0;
  let pssKnown = true;
  for (const pid of kids) {
    const m = read(pid);
    if (!m) continue; // exited between the listing and the read
    childrenRss += m.rss;
    if (m.pss === null) pssKnown = false;
    else childrenPss += m.pss;
  }
  const fds = own === null ? null : stats?.fds ?? countFds(h.pid);
  const probe = h.probe;
  const view = {
    own, children: kids.length, childrenRss, childrenPss: pssKnown ? childrenPss : null, fds,
    tree: kids.length || h.tree.length > 1 ? rememberTree([h.pid, ...kids]) : null,
  };
  if (own && detail && own.pss !== null) {
    pool?.notePoll(h, { pssBase: { shared: own.rss - own.pss, nonAnon: own.rss - (own.anon ?? own.rss), childrenShared: view.childrenPss === null ? null : childrenRss - view.childrenPss } });
  } else if (own && !detail && probe?.pssBase) {
    const base = probe.pssBase;
    own.pss = Math.max(0, own.rss - base.shared);
    own.anon = Math.max(0, own.rss - base.nonAnon);
    view.childrenPss = base.childrenShared === null ? null : Math.max(0, childrenRss - base.childrenShared);
  }
  return view;
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
    heapPhysical: stats?.heapPhysical ?? null,
    // A leak inside a thread is a heap leak: the threads' heaps are judged with the main one's floor.
    heapFloor: stats?.heapFloor == null ? null : stats.heapFloor + (stats.threadsHeapUsed ?? 0),
    external,
    arrayBuffers: stats?.arrayBuffers ?? null,
    // external already holds arrayBuffers (docs/design.md), so it is not subtracted twice. V8's physical
    // heap size, not heapTotal: reserved-but-untouched heap pages are not in RSS and would hide
    // native memory (a 100 MB allocation read native 36 → 7 MB with heapTotal, 36 → 37 with this).
    // worker_threads' heaps are V8 heaps too, not native memory (where the agent can see them).
    native: rss === null || heapTotal === null || external === null ? null
      : Math.max(0, rss - (stats.heapPhysical ?? heapTotal) - external - (stats.threadsHeapPhysical ?? 0)),
    newSpace: stats?.newSpace ?? null,
    gcCount: stats?.gcCount ?? null,
    gcMs: stats?.gcMs ?? null,
    majorGcCount: stats?.majorGcCount ?? null,
    elu: stats?.elu ?? null,
    delayP50: stats?.delayP50 ?? null,
    delayP99: stats?.delayP99 ?? null,
    cpuWaitShare: stats?.cpuWaitShare ?? null,
    requests: stats?.requests ?? null,
    handles: stats?.handles ?? null,
    // Per-type active resources ({TCPSocketWrap: 12, Timeout: 40}) and scavenges so far.
    resources: stats?.resources ?? null,
    fdKinds: stats?.fdKinds ?? null, // what the fds are (src/proc/fds.js), on the agent's full reads while it has many
    childCommands: stats?.childCommands ?? null, // its children by command line, on the agent's full reads
    minorGcCount: stats?.minorGcCount ?? null,
    minorGcMs: stats?.minorGcMs ?? null,
    gcFlags: stats?.gcFlags ?? null,
    threads: stats?.threads ?? null,
    threadsHeapUsed: stats?.threadsHeapUsed ?? null,
    agent: stats !== null,
  };
}
