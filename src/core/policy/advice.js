// Advice from one sample: the patterns the incidents taught us (docs/incidents.md), each as a code and the facts behind
// it. Words are the report's (report/advice-words.js). Unknown inputs give no advice, never a wrong one.

import { ADVICE } from '../../constants.js';

export { ADVICE };

const MiB = 1024 * 1024;


/** The bars each advice line is raised at; exported so tests and docs quote them. */
export const ADVICE_THRESHOLDS = Object.freeze({
  nativeRatio: 2, // rss over 2× heapTotal …
  nativeBytes: 100 * MiB, // … and this much outside V8: incident 2's 377 MiB gap (docs/incidents.md)
  newSpace: 8 * MiB, // incident 1: 8 MiB under a cgroup limit already cost 25 % CPU in scavenges
  // … but only a hot scavenger makes a small new space a problem: an idle worker's new space is
  // small because V8 grows it on demand (1 MiB at start on every line), not because it is capped.
  scavengesPerSec: 10,
  minorGcShare: 0.02,
  heapHigh: 0.7, // of V8's heap limit: past this, full GCs come ever more often
  gcShare: 0.1, // incident 3: 2–3 % is normal, 13 % hurt latency
  delayP99: 100, // ms of event-loop delay: every request waits that long
  cpuWait: 0.2, // share of the window the loop's thread waited for a CPU: past it, a late loop is starved, not blocked
  heapNearLimit: 0.85, // of V8's own heap limit: past this V8 thrashes in full GCs before it dies
  fds: 1000,
  handles: 1000,
});

const A = ADVICE_THRESHOLDS;
// V8 flags that take GC work off its helper threads and put it on the main thread, in every pause.
const MAIN_THREAD_GC = /^--(no-concurrent-marking|no-parallel-marking|no-parallel-scavenge|no-concurrent-sweeping|no-parallel-compaction|single-threaded-gc|single-threaded|predictable|gc-global|stress-compaction)\b/;
const known = (v) => v !== null && v !== undefined && !Number.isNaN(v);

function newSpaceOf(sample, heapSpaces) {
  if (known(sample.newSpace)) return sample.newSpace;
  const space = heapSpaces?.find?.((s) => s.space_name === 'new_space');
  return known(space?.space_size) ? space.space_size : null;
}

// What the agent can see of why GC takes so long, most specific first.
function gcCause({ gcFlags, heapUsed, heapLimit }, newSpace, scavengerHot) {
  if (gcFlags?.length) return { cause: 'flags', gcFlags: gcFlags.slice(0, 2) };
  if (known(heapUsed) && known(heapLimit) && heapLimit > 0 && heapUsed > A.heapHigh * heapLimit) return { cause: 'heap-high', heapUsed, heapLimit };
  if (scavengerHot && known(newSpace) && newSpace <= A.newSpace) return { cause: 'new-space', newSpace };
  return { cause: 'unknown' };
}

/**
 * What advise() reads of a worker: its newest sample's fields that advice is about, the GC rates of
 * its last minute, and whether its native memory rises, asked only when a native gap is large (a
 * fit over two minutes of samples). The fields are copied, never the whole sample and never by
 * making the sample a prototype: a sample stays in its window for minutes and is read by every
 * trend fit, and V8 gives an object that served as a prototype a hidden class of its own, which
 * makes each of those reads slow. A field advise() reads must be copied here
 * (test/core/policy/advice.test.js holds advise() to this view's fields).
 */
export class AdviceView {
  #rising;
  /**
   * @param {import('../../types.js').Sample} s
   * @param {{gcShareLastMinute:number|null, scavengesPerSec:number|null, minorGcShare:number|null}} gc
   * @param {() => boolean|null|undefined} rising
   */
  constructor(s, gc, rising) {
    this.rss = s.rss;
    this.heapUsed = s.heapUsed;
    this.heapTotal = s.heapTotal;
    this.heapLimit = s.heapLimit;
    this.external = s.external;
    this.native = s.native;
    this.newSpace = s.newSpace;
    this.delayP99 = s.delayP99;
    this.cpuWaitShare = s.cpuWaitShare;
    this.gcFlags = s.gcFlags;
    this.fds = s.fds;
    this.handles = s.handles;
    this.gcShareLastMinute = gc.gcShareLastMinute;
    this.scavengesPerSec = gc.scavengesPerSec;
    this.minorGcShare = gc.minorGcShare;
    this.#rising = rising;
  }

  get nativeRising() {
    return this.#rising();
  }
}

/**
 * @typedef {object} AdviceContext
 * @property {import('../../types.js').Limits|null} [limits]
 * @property {number|null} [cgroupLimit]   bytes
 * @property {{space_name:string, space_size:number}[]|null} [heapSpaces]  v8.getHeapSpaceStatistics()
 */

/**
 * Advice for one worker's sample, most urgent first: [{ code, ...facts }], one per code.
 * `sample` may carry gcShareLastMinute (0..1, GC time over wall time over the last minute).
 * @param {import('../../types.js').Sample & {gcShareLastMinute?: number|null}} sample
 * @param {AdviceContext} [ctx]
 */
export function advise(sample, { limits = null, cgroupLimit = null, heapSpaces = null } = {}) {
  const out = [];
  if (!sample) return out;
  const { rss, heapUsed, heapTotal, heapLimit, external, delayP99, gcShareLastMinute, fds, handles } = sample;

  if (known(heapUsed) && known(heapLimit) && heapLimit > 0 && heapUsed > A.heapNearLimit * heapLimit) {
    out.push({ code: ADVICE.HEAP_NEAR_LIMIT, heapUsed, heapLimit });
  }

  if (known(rss) && known(heapTotal) && heapTotal > 0) {
    const outside = known(sample.native) ? sample.native : known(external) ? rss - heapTotal - external : null;
    // Told apart where the trend is known (the poll passes nativeRising): rising is native
    // allocations that grow, flat is memory kept; the tick waits until it knows. Read only past the
    // cheap checks: the tick's nativeRising is a fit over two minutes of samples.
    if (rss > A.nativeRatio * heapTotal && known(outside) && outside > A.nativeBytes) {
      const trend = sample.nativeRising;
      if (trend !== null) out.push({ code: ADVICE.NATIVE_GAP, rss, heapTotal, outside, ...(trend === undefined ? {} : { rising: trend }) });
    }
  }

  const newSpace = newSpaceOf(sample, heapSpaces);
  const scavengerHot = (known(sample.scavengesPerSec) && sample.scavengesPerSec >= A.scavengesPerSec)
    || (known(sample.minorGcShare) && sample.minorGcShare >= A.minorGcShare);

  if (known(gcShareLastMinute) && gcShareLastMinute > A.gcShare) {
    // gcShare: the same figure under its first name, kept for readers of the event (deprecated).
    out.push({ code: ADVICE.GC_SHARE, gcShareLastMinute, gcShare: gcShareLastMinute, ...gcCause(sample, newSpace, scavengerHot) });
  }

  if (known(delayP99) && delayP99 > A.delayP99) {
    const starved = known(sample.cpuWaitShare) && sample.cpuWaitShare >= A.cpuWait;
    out.push({ code: starved ? ADVICE.CPU_STARVATION : ADVICE.LOOP_DELAY, delayP99, cpuWaitShare: sample.cpuWaitShare ?? null });
  }

  // Incident 3: shipped with concurrent marking off; named from the first sample on.
  const mainThreadGc = (sample.gcFlags ?? []).filter((f) => MAIN_THREAD_GC.test(f));
  if (mainThreadGc.length) out.push({ code: ADVICE.GC_FLAGS, gcFlags: mainThreadGc.slice(0, 3) });

  if (known(newSpace) && newSpace <= A.newSpace && scavengerHot) {
    out.push({ code: ADVICE.TINY_NEW_SPACE, newSpace, cgroupLimit: known(cgroupLimit) ? cgroupLimit : null, scavengesPerSec: known(sample.scavengesPerSec) ? sample.scavengesPerSec : null });
  }

  // A V8 heap allowed past the RSS limit means V8 never collects hard before nodesup recycles (incident 2).
  const rssLimit = limits?.rss ?? null;
  if (known(rssLimit) && known(heapLimit) && heapLimit > rssLimit) {
    out.push({ code: ADVICE.HEAP_LIMIT_ABOVE_RSS, heapLimit, rssLimit, maxOldSpaceMb: Math.floor((rssLimit * 0.75) / MiB) });
  }

  // Per worker, so it is only certain to be wrong when one worker alone may pass the container's limit.
  if (known(rssLimit) && known(cgroupLimit) && rssLimit > cgroupLimit) {
    out.push({ code: ADVICE.RSS_LIMIT_ABOVE_CGROUP, rssLimit, cgroupLimit });
  }

  if (known(fds) && fds > A.fds) {
    out.push({ code: ADVICE.FD_GROWTH, fds });
  }
  if (known(handles) && handles > A.handles) {
    out.push({ code: ADVICE.HANDLES, handles });
  }
  return out;
}
