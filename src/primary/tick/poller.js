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
import { FIELDS, SOURCE, CADENCE } from '../../sample/fields.js';
import { isFieldName } from '../../sample/field-reader.js';

/** @typedef {import('../../sample/fields.js').Sample} Sample */

/**
 * Sample every handle; pushes each sample into the handle's window and returns them.
 * @param {import('../lifecycle/pool.js').Pool} pool
 * @param {import('../lifecycle/pool.js').WorkerRecord[]} handles
 * @param {{timeoutMs:number, now:() => number}} o
 */
export async function pollOnce(pool, handles, { timeoutMs, now }) {
  const full = handles.map((rec) => {
    pool.notePoll(rec);
    return isFullRead(rec.probe);
  });
  const stats = await pool.requestEach(handles, KIND.STATS, (i) => (full[i] ? { full: true } : {}), timeoutMs);
  const t = now();
  return handles.map((rec, i) => {
    const proc = readTree(pool, rec, full[i], stats[i]);
    return record(pool, rec, buildSample(t, rec.pid, proc, stats[i], rec.facts), proc);
  });
}

/**
 * One sample of rec now, from /proc and agent stats already in hand (a GC's reply): for the steps
 * that must see a worker between ticks, so they need not sample for themselves.
 */
export function sampleOne(pool, rec, stats, { full, now }) {
  const proc = readTree(pool, rec, full, stats);
  return record(pool, rec, buildSample(now(), rec.pid, proc, stats, rec.facts), proc);
}

/** The sampler the recycler reads a worker through between ticks. */
export function sampler(pool, now) {
  return {
    /** One sample of rec now, kept in its window, with agent stats already in hand. */
    sample: (rec, stats, { full }) => sampleOne(pool, rec, stats, { full, now }),
    /** rec's tree RSS now, kept nowhere. */
    treeRss: (rec) => treeRssNow(rec),
  };
}

/** rec's process tree RSS now, from statm (no sample kept): for watching a crossing closely. */
export function treeRssNow(rec) {
  const proc = readTree(null, rec, false);
  return proc.own ? proc.own.rss + proc.childrenRss : null;
}

function record(pool, rec, sample, proc) {
  pool.record(rec, sample, proc.tree);
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
 * @param {import('../lifecycle/pool.js').WorkerRecord} rec
 * @param {boolean} [detail]
 * @param {{rss?:number, fds?:number|null, childPids?:number[], allThreads?:boolean,
 *   memory?:{rss:number, pss:number|null, anon:number|null}|null}|null} [stats]
 */
export function readTree(pool, rec, detail = true, stats = null) {
  // The children come with the reply: the main thread's, and on a full read every thread's (a
  // worker_thread may spawn too). A tree known from before is walked again to see it go.
  const listed = Array.isArray(stats?.childPids) && (!detail || stats.allThreads === true);
  const walk = !listed || stats.childPids.length > 0 || rec.tree.length > 1;
  const kids = walk ? descendantsOf(rec.pid, detail) : [];
  const fromAgent = detail
    ? (stats?.memory?.rss == null ? null : { ...stats.memory })
    : (stats?.rss == null ? null : { rss: stats.rss, pss: null, anon: null });
  const read = detail ? readMemory : (pid) => { const rss = readRss(pid); return rss === null ? null : { rss, pss: null, anon: null }; };
  const own = fromAgent ?? read(rec.pid);
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
  const fds = own === null ? null : stats?.fds ?? countFds(rec.pid);
  const probe = rec.probe;
  const view = {
    own, children: kids.length, childrenRss, childrenPss: pssKnown ? childrenPss : null, fds,
    tree: kids.length || rec.tree.length > 1 ? rememberTree([rec.pid, ...kids]) : null,
  };
  if (own && detail && own.pss !== null) {
    pool?.notePoll(rec, { pssBase: { shared: own.rss - own.pss, nonAnon: own.rss - (own.anon ?? own.rss), childrenShared: view.childrenPss === null ? null : childrenRss - view.childrenPss } });
  } else if (own && !detail && probe?.pssBase) {
    const base = probe.pssBase;
    own.pss = Math.max(0, own.rss - base.shared);
    own.anon = Math.max(0, own.rss - base.nonAnon);
    view.childrenPss = base.childrenShared === null ? null : Math.max(0, childrenRss - base.childrenShared);
  }
  return view;
}

// How the poller fills the fields that are not the agent's, by name (src/sample/fields.js).
const FILL = {
  t: (c) => c.t,
  pid: (c) => c.pid,
  rss: (c) => c.rss,
  pss: (c) => c.proc.own?.pss ?? null,
  anon: (c) => c.proc.own?.anon ?? null,
  treeRss: (c) => (c.rss === null ? null : c.rss + c.proc.childrenRss),
  treePss: (c) => (c.proc.own?.pss == null || c.proc.childrenPss === null ? null : c.proc.own.pss + c.proc.childrenPss),
  childrenRss: (c) => (c.proc.own ? c.proc.childrenRss : null),
  children: (c) => (c.proc.own ? c.proc.children : null),
  fds: (c) => c.proc.fds,
  // external already holds arrayBuffers (docs/design.md), so it is not subtracted twice. V8's physical
  // heap size, not heapTotal: reserved-but-untouched heap pages are not in RSS and would hide
  // native memory (a 100 MB allocation read native 36 → 7 MB with heapTotal, 36 → 37 with this).
  // worker_threads' heaps are V8 heaps too, not native memory (where the agent can see them).
  native: ({ rss, stats }) => (rss === null || stats?.heapTotal == null || stats.external == null ? null
    : Math.max(0, rss - (stats.heapPhysical ?? stats.heapTotal) - stats.external - (stats.threadsHeapPhysical ?? 0))),
  agent: (c) => c.stats !== null,
};
// An agent field the poller completes: a leak inside a thread is a heap leak, so the threads' heaps
// are judged with the main one's floor.
const COMPLETE = {
  heapFloor: (v, stats) => v + (stats.threadsHeapUsed ?? 0),
};

/**
 * Combine /proc and agent views into a Sample, field by field of the table; what was not measured
 * stays null. `facts`: what the agent said at hello, whose constants (heapLimit, gcFlags) every
 * sample it answers carries; an agent that still sends them on each poll is read as it always was.
 */
export function buildSample(t, pid, proc, stats, facts = null) {
  const c = { t, pid, proc, stats, rss: proc.own?.rss ?? stats?.rss ?? null };
  return assemble(c, stats, facts);
}

// The Sample as one object literal of every field in the table's order, made once from the table:
// each sample then gets its whole shape at once (a field added one at a time, by a name that changes
// from field to field, was a store V8 could not specialise), and every later read of a sample in
// the windows and the trend maths is a load from the object itself.
const assemble = new Function('FILL', 'agentValue', 'FIELDS', `return function assemble(c, stats, facts) {
  return {
    ${FIELDS.map((f, i) => {
    if (!isFieldName(f.name)) throw new Error(`sample field ${f.name}: not an identifier`);
    return `${f.name}: ${f.source !== SOURCE.AGENT ? `FILL.${f.name}(c)` : `agentValue(FIELDS[${i}], stats, facts)`},`;
  }).join('\n    ')}
  };
};`)(FILL, agentValue, FIELDS);

function agentValue(f, stats, facts) {
  if (stats === null || stats === undefined) return null;
  const v = stats[f.name] ?? (f.cadence === CADENCE.ONCE ? facts?.[f.name] : null) ?? null;
  return v !== null && COMPLETE[f.name] ? COMPLETE[f.name](v, stats) : v;
}
