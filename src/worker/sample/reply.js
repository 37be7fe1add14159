// The agent's reply to a poll, built field by field from the Sample's table (src/sample/fields.js):
// each agent field of the table is read here by its name, with the readings the agent makes of
// /proc for the primary, and nothing else is sent. The process's constants go once, in the hello.
import v8 from 'node:v8';
import { performance } from 'node:perf_hooks';
import { AGENT_POLLED, AGENT_CONSTANTS, READINGS, DETAIL } from '../../sample/fields.js';
import { childrenOf } from '../../proc/descendants.js';
import { readMemory, countFds } from '../../proc/memory.js';
import { fdKinds } from '../../proc/fds.js';
import { countCommands } from '../../proc/cmdline.js';

const FD_KINDS_FROM = 48; // fds from which a poll says what they are: a bare worker has ~20
// … and again each time the count passes its highest by this many, or a quarter of it: a leak of
// a few fds a second is read a few times before it is named, a ramp to 10,000 connections ~20 times.
const FD_KINDS_RISE = 20;
// Flags that change how V8 collects, from the command line or NODE_OPTIONS: a GC-share advice names
// them as the likely cause (docs/incidents.md, incident 3: concurrent marking off).
const GC_FLAG = /^--(no-)?(concurrent-marking|parallel-marking|parallel-scavenge|concurrent-sweeping|incremental-marking|single-threaded-gc|single-threaded|predictable|gc-interval|max-semi-space-size|min-semi-space-size|semi-space-growth-factor|optimize-for-size|max-old-space-size|gc-global|stress-compaction)\b/;

// The constants, by field name.
const ONCE = {
  heapLimit: () => v8.getHeapStatistics().heap_size_limit,
  gcFlags: () => [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((f) => f.replace(/_/g, '-')).filter((f) => GC_FLAG.test(f)),
};

// Each polled field and reading, by name, from one reading of the process (read() below).
// undefined: not sent on this poll (a field the table gives `only`).
const POLLED = {
  heapUsed: (r) => r.mem.heapUsed,
  heapTotal: (r) => r.mem.heapTotal,
  // heapTotal counts pages V8 reserved but never touched; the physical size is what RSS holds.
  heapPhysical: (r) => r.heap.total_physical_size,
  heapFloor: (r) => r.heapFloor,
  external: (r) => r.mem.external,
  arrayBuffers: (r) => r.mem.arrayBuffers,
  newSpace: (r) => r.spaces.find((s) => s.space_name === 'new_space')?.space_size ?? null,
  gcCount: (r) => r.gc.count,
  gcMs: (r) => r.gc.ms,
  majorGcCount: (r) => r.gc.major,
  minorGcCount: (r) => r.gc.byKind.minor.count,
  minorGcMs: (r) => r.gc.byKind.minor.ms,
  elu: (r) => r.elu,
  delayP50: (r) => r.delay.delayP50,
  delayP99: (r) => r.delay.delayP99,
  delayMax: (r) => r.delay.delayMax,
  cpuWaitShare: (r) => r.cpuWaitShare,
  requests: (r) => r.requests,
  handles: (r) => r.resources.length,
  // Per type ("TCPSocketWrap", "Timeout", …): a leak of sockets or timers is named by its types.
  resources: (r) => countBy(r.resources),
  fdKinds: (r) => r.fdKinds ?? undefined,
  // The children by command, on a full read: a children leak is named by what they are.
  childCommands: (r) => (r.full && r.childPids.length ? countCommands(r.childPids) : undefined),
  threads: (r) => r.threads.threads,
  threadsHeapUsed: (r) => r.threads.threadsHeapUsed,
  threadsHeapPhysical: (r) => r.threads.threadsHeapPhysical,
  // What the primary would otherwise read from /proc itself on every poll, read here where the
  // process is awake anyway: a read of the primary's is a syscall more on the one busy process.
  rss: (r) => r.mem.rss,
  fds: (r) => r.fds,
  childPids: (r) => r.childPids,
  allThreads: (r) => r.full,
  // smaps_rollup walks every mapping (~1 ms of kernel time): paid here, by each worker in turn,
  // rather than by the one primary for all of them (a third of its CPU at 128 workers).
  memory: (r) => (r.full ? readMemory(process.pid) : undefined),
};
const DETAILED = {
  heapSpaces: (r) => r.spaces.map((s) => ({ name: s.space_name, size: s.space_size, used: s.space_used_size, available: s.space_available_size })),
  heap: (r) => r.heap,
  gcByKind: (r) => ({ ...r.gc.byKind }),
  execArgv: () => process.execArgv,
};

/** The process's constants (the table's 'once' agent fields), for the hello. */
export function constants() {
  return Object.fromEntries(AGENT_CONSTANTS.map((f) => [f.name, ONCE[f.name]()]));
}

/**
 * The reply to a poll: the table's polled agent fields and the readings, each by its name.
 * @param {object} state  the agent's: gc totals, heap floor, loop windows, request count, threads, fd kinds
 * @param {{detail?: boolean, full?: boolean}} o  detail: inspect's read, which looks at the poll's
 *   window without closing it; full: the poll's periodic full read
 */
export function replyOf(state, { detail = false, full = false } = {}) {
  const r = read(state, detail, full);
  const out = {};
  for (const f of [...AGENT_POLLED, ...READINGS]) {
    const v = POLLED[f.name](r);
    if (v !== undefined) out[f.name] = v;
  }
  if (!detail) readFdKinds(state.fdKinds, out.fds);
  if (detail) for (const f of DETAIL) out[f.name] = DETAILED[f.name](r);
  return out;
}

// One reading of the process that every field is taken from; the windows a poll closes (loop
// utilization and delay, CPU wait, the heap floor) are closed here, and only by a poll.
function read(state, detail, full) {
  const mem = process.memoryUsage();
  const elu = performance.eventLoopUtilization(state.elu);
  if (!detail) state.elu = performance.eventLoopUtilization();
  const r = {
    mem, full, heap: v8.getHeapStatistics(), spaces: v8.getHeapSpaceStatistics(), resources: process.getActiveResourcesInfo(),
    elu: elu.utilization, gc: state.gc, requests: state.requests,
    // The lowest heap seen since the last poll, just after a GC or now: the post-GC baseline.
    heapFloor: state.heapFloor === null ? mem.heapUsed : Math.min(state.heapFloor, mem.heapUsed),
    delay: detail ? state.delay.peek() : state.delay.read(elu.utilization),
    // Time the loop's thread was runnable but waited for a CPU, over the same window.
    cpuWaitShare: state.cpuWait.share(!detail),
    fds: countOwnFds(),
    childPids: childrenOf(process.pid, full),
    threads: state.threads(),
    fdKinds: null,
  };
  if (!detail) state.heapFloor = null;
  // A reading that landed since the last poll rides on this one, once.
  if (state.fdKinds.fresh && !detail) { r.fdKinds = state.fdKinds.fresh; state.fdKinds.fresh = null; }
  return r;
}

/** The agent's memory of its fd-kinds reads (readFdKinds). */
export function fdKindsState() {
  return { reading: false, high: 0, fresh: null };
}

// What the fds are (src/proc/fds.js: a readlink per fd, the namespace's socket tables read off the
// loop and parsed in slices), read on a poll only when the count passed its highest yet by
// FD_KINDS_RISE: a worker whose fds hold still, or come and go with load, is not read again. Not
// only on full reads (one poll in ten): a leak named 24 s after ready had one reading, or none,
// and was said as "fd" where it is sockets to one peer.
function readFdKinds(st, fds) {
  if (st.reading || fds === null || fds < FD_KINDS_FROM || fds < st.high + Math.max(FD_KINDS_RISE, st.high / 4)) return;
  st.reading = true;
  st.high = fds;
  fdKinds(process.pid).then((kinds) => { if (kinds) st.fresh = kinds; }, () => {}).finally(() => { st.reading = false; });
}

function countOwnFds() {
  const n = countFds(process.pid); // null off Linux
  return n === null ? null : n - 1; // a process listing its own fds sees the listing's fd too
}

function countBy(list) {
  const out = {};
  for (const x of list) out[x] = (out[x] ?? 0) + 1;
  return out;
}
