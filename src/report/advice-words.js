// The words of every advice code, made once: core/policy/advice.js and core/policy/fit.js give a code and the facts
// behind it; this says them, each line at most 120 characters, with the fix to try.
import { ADVICE } from '../constants.js';
import { formatBytes } from '../units.js';

const pct = (f) => `${Math.round(f * 100)}%`;

function gcCause(a) {
  switch (a.cause) {
    case 'flags': return `GC flags ${a.gcFlags.join(' ')} in nodeArgs or NODE_OPTIONS; try without them`.slice(0, 90);
    case 'heap-high': return `the heap is ${pct(a.heapUsed / a.heapLimit)} of its limit; find the leak or raise --max-old-space-size`;
    case 'new-space': return `a ${formatBytes(a.newSpace)} new space; add --max-semi-space-size=16`;
    default: return 'check the allocation rate and heap growth';
  }
}

function overcommit(a) {
  const fix = a.totalRssSet ? 'or fewer workers' : "fewer workers, or limits.totalRss: '90%'";
  if (a.by === 'rss') {
    return `${a.workers} workers × limits.rss ${formatBytes(a.rssLimit)} > container limit ${formatBytes(a.limit)}: set limits.rss ≤ ${formatBytes(a.share)}, ${fix}`;
  }
  const native = a.nativeBaseline ? ` + ${formatBytes(a.nativeBaseline)} native` : '';
  return `${a.workers} workers × (V8 heap limit ${formatBytes(a.heapLimit)}${native}) > container limit ${formatBytes(a.limit)}: nodeArgs ['--max-old-space-size=${a.oldSpaceMb}'], ${fix}`;
}

// One worker at the container's limit takes the pod: each needs a limits.rss that leaves the others their room.
function oomGroup(a) {
  const head = `memory.oom.group: a worker at the ${formatBytes(a.cgroupLimit)} limit takes the whole pod`;
  // Rounded down: a limit at most this keeps within the share; one rounded up would not.
  const most = `${Math.floor(a.share / (1024 * 1024))} MiB`;
  if (a.rssLimit === null) return `${head}; set limits.rss ≤ ${most} to recycle it first`;
  return `${head}; limits.rss ${formatBytes(a.rssLimit)} is too high: set ≤ ${most}`;
}

function oomKill(a) {
  const at = a.lastRss ? ` at ${formatBytes(a.lastRss)}` : '';
  const head = `slot ${a.slot} was killed by the kernel's OOM killer${at}`;
  if (a.fix === 'below-machine') return `${head}: set limits.rss below what the machine can give each worker`;
  const within = `container limit ${formatBytes(a.cgroupLimit)}, ${a.workers} workers`;
  if (a.fix === 'lower-rss') return `${head} (${within}): set limits.rss ≤ ${formatBytes(a.share)} so nodesup recycles it first`;
  return `${head} (${within}): the workers together overflow it; set limits.totalRss: '90%' or run fewer workers`;
}

const WORDS = {
  [ADVICE.HEAP_NEAR_LIMIT]: (a) => `heap is ${pct(a.heapUsed / a.heapLimit)} of V8's ${formatBytes(a.heapLimit)} limit: find the leak or raise --max-old-space-size`,
  [ADVICE.NATIVE_GAP]: (a) => {
    const gap = `RSS ${(a.rss / a.heapTotal).toFixed(1)}× the V8 heap, ${formatBytes(a.outside)} outside it`;
    if (a.rising === true) return `${gap}, rising: native allocations grow (zlib or crypto streams left open, addons)`;
    // Flat is not a leak. Whether malloc keeps it freed or native state holds it for good, the
    // numbers cannot tell (bench/corpus/allocator-retention.js: neither line below lowered it).
    if (a.rising === false) return `${gap}, flat, no leak: try env: { MALLOC_ARENA_MAX: '2' } or jemalloc`;
    return `${gap}: native or fragmented; try a full GC or MALLOC_ARENA_MAX=2`;
  },
  [ADVICE.GC_SHARE]: (a) => `GC takes ${pct(a.gcShareLastMinute ?? a.gcShare)} of the time: ${gcCause(a)}`,
  [ADVICE.LOOP_DELAY]: (a) => `event-loop delay p99 is ${Math.round(a.delayP99)} ms: synchronous work blocks every request`,
  [ADVICE.CPU_STARVATION]: (a) => `loop delay p99 ${Math.round(a.delayP99)} ms, ${pct(a.cpuWaitShare)} of it waiting for a CPU: starved by other processes, not blocking code`,
  [ADVICE.GC_FLAGS]: (a) => `${a.gcFlags.join(' ')} in nodeArgs or NODE_OPTIONS: GC work moves onto the main thread; drop it`.slice(0, 120),
  [ADVICE.TINY_NEW_SPACE]: (a) => {
    const rate = a.scavengesPerSec != null ? `, ${Math.round(a.scavengesPerSec)} scavenges/s` : '';
    const under = a.cgroupLimit != null ? ` under a ${formatBytes(a.cgroupLimit)} cgroup limit` : '';
    return `new space is ${formatBytes(a.newSpace)}${under}${rate}: add --max-semi-space-size=16 to nodeArgs`;
  },
  [ADVICE.HEAP_LIMIT_ABOVE_RSS]: (a) => `V8 heap limit ${formatBytes(a.heapLimit)} is above the ${formatBytes(a.rssLimit)} rss limit: add --max-old-space-size=${a.maxOldSpaceMb} to nodeArgs`,
  [ADVICE.RSS_LIMIT_ABOVE_CGROUP]: (a) => `rss limit ${formatBytes(a.rssLimit)} is above the ${formatBytes(a.cgroupLimit)} cgroup limit: the OOM killer acts first`,
  [ADVICE.FD_GROWTH]: (a) => `${a.fds} open file descriptors: sockets or files may be leaking; check keep-alive agents and pools`,
  [ADVICE.HANDLES]: (a) => `${a.handles} active handles: timers or sockets may be leaking; check keep-alive agents and pools`,
  [ADVICE.STICKY_SESSIONS]: (a) => `engine.io long-polls over ${a.workers} round-robin workers: clients get HTTP 400 "Session ID unknown"; set balance: 'sticky'`,
  [ADVICE.OVERCOMMIT]: overcommit,
  [ADVICE.OOM_KILL]: oomKill,
  [ADVICE.OOM_GROUP]: oomGroup,
};

/** One line for one piece of advice ({code, ...facts}); an unknown code is said by its code. */
export function adviceText(a) {
  const words = WORDS[a?.code];
  return words ? words(a) : String(a?.message ?? a?.code ?? '');
}
