// Plain-language advice from one sample: what `inspect` and the status view tell a person, each line
// a pattern one of the incidents taught us. Unknown inputs give no advice, never a wrong one.

import { formatBytes } from '../units.js';
import { ADVICE } from '../constants.js';

export { ADVICE };

const MiB = 1024 * 1024;


/** The bars each advice line is raised at; exported so tests and docs quote them. */
export const ADVICE_THRESHOLDS = Object.freeze({
  nativeRatio: 2, // rss over 2× heapTotal …
  nativeBytes: 100 * MiB, // … and this much outside V8: seed 001's 377 MiB gap
  newSpace: 8 * MiB, // seed 000: 8 MiB under a cgroup limit already cost 25 % CPU in scavenges
  // … but only a hot scavenger makes a small new space a problem: an idle worker's new space is
  // small because V8 grows it on demand (1 MiB at start on every line), not because it is capped.
  scavengesPerSec: 10,
  minorGcShare: 0.02,
  heapHigh: 0.7, // of V8's heap limit: past this, full GCs come ever more often
  gcShare: 0.1, // seed 002: 2–3 % is normal, 13 % hurt latency
  delayP99: 100, // ms of event-loop delay: every request waits that long
  heapNearLimit: 0.85, // of V8's own heap limit: past this V8 thrashes in full GCs before it dies
  fds: 1000,
  handles: 1000,
});

const A = ADVICE_THRESHOLDS;
const known = (v) => v !== null && v !== undefined && !Number.isNaN(v);
const pct = (f) => `${Math.round(f * 100)}%`;

function newSpaceOf(sample, heapSpaces) {
  if (known(sample.newSpace)) return sample.newSpace;
  const space = heapSpaces?.find?.((s) => s.space_name === 'new_space');
  return known(space?.space_size) ? space.space_size : null;
}

// What the agent can see of why GC takes so long, most specific first.
function gcCause({ gcFlags, heapUsed, heapLimit }, newSpace, scavengerHot) {
  if (gcFlags?.length) return `GC flags ${gcFlags.slice(0, 2).join(' ')} in nodeArgs or NODE_OPTIONS; try without them`.slice(0, 90);
  if (known(heapUsed) && known(heapLimit) && heapLimit > 0 && heapUsed > A.heapHigh * heapLimit) {
    return `the heap is ${pct(heapUsed / heapLimit)} of its limit; find the leak or raise --max-old-space-size`;
  }
  if (scavengerHot && known(newSpace) && newSpace <= A.newSpace) return `a ${formatBytes(newSpace)} new space; add --max-semi-space-size=16`;
  return 'check the allocation rate and heap growth';
}

/**
 * @typedef {object} AdviceContext
 * @property {import('../types.js').Limits|null} [limits]
 * @property {number|null} [cgroupLimit]   bytes
 * @property {{space_name:string, space_size:number}[]|null} [heapSpaces]  v8.getHeapSpaceStatistics()
 */

/**
 * Advice lines for one worker's sample, most urgent first: [{ code, message }], each message ≤ 120 chars.
 * `sample` may carry gcShare (0..1, GC time over wall time since the previous sample).
 * @param {import('../types.js').Sample & {gcShare?: number|null}} sample
 * @param {AdviceContext} [ctx]
 */
export function advise(sample, { limits = null, cgroupLimit = null, heapSpaces = null } = {}) {
  const out = [];
  if (!sample) return out;
  const { rss, heapUsed, heapTotal, heapLimit, external, delayP99, gcShare, fds, handles } = sample;

  if (known(heapUsed) && known(heapLimit) && heapLimit > 0 && heapUsed > A.heapNearLimit * heapLimit) {
    out.push({ code: ADVICE.HEAP_NEAR_LIMIT,
      message: `heap is ${pct(heapUsed / heapLimit)} of V8's ${formatBytes(heapLimit)} limit: `
        + 'find the leak or raise --max-old-space-size' });
  }

  if (known(rss) && known(heapTotal) && heapTotal > 0) {
    const outside = known(sample.native) ? sample.native : known(external) ? rss - heapTotal - external : null;
    if (rss > A.nativeRatio * heapTotal && known(outside) && outside > A.nativeBytes) {
      out.push({ code: ADVICE.NATIVE_GAP,
        message: `RSS is ${(rss / heapTotal).toFixed(1)}× the V8 heap, ${formatBytes(outside)} outside it: `
          + 'native or fragmented; try a full GC or MALLOC_ARENA_MAX=2' });
    }
  }

  const newSpace = newSpaceOf(sample, heapSpaces);
  const scavengerHot = (known(sample.scavengesPerSec) && sample.scavengesPerSec >= A.scavengesPerSec)
    || (known(sample.minorGcShare) && sample.minorGcShare >= A.minorGcShare);

  if (known(gcShare) && gcShare > A.gcShare) {
    out.push({ code: ADVICE.GC_SHARE, message: `GC takes ${pct(gcShare)} of the time: ${gcCause(sample, newSpace, scavengerHot)}` });
  }

  if (known(delayP99) && delayP99 > A.delayP99) {
    out.push({ code: ADVICE.LOOP_DELAY,
      message: `event-loop delay p99 is ${Math.round(delayP99)} ms: synchronous work blocks every request` });
  }

  if (known(newSpace) && newSpace <= A.newSpace && scavengerHot) {
    const rate = known(sample.scavengesPerSec) ? `, ${Math.round(sample.scavengesPerSec)} scavenges/s` : '';
    const under = known(cgroupLimit) ? ` under a ${formatBytes(cgroupLimit)} cgroup limit` : '';
    out.push({ code: ADVICE.TINY_NEW_SPACE,
      message: `new space is ${formatBytes(newSpace)}${under}${rate}: add --max-semi-space-size=16 to nodeArgs` });
  }

  // A V8 heap allowed past the RSS limit means V8 never collects hard before nodesup recycles (seed 001).
  const rssLimit = limits?.rss ?? null;
  if (known(rssLimit) && known(heapLimit) && heapLimit > rssLimit) {
    out.push({ code: ADVICE.HEAP_LIMIT_ABOVE_RSS,
      message: `V8 heap limit ${formatBytes(heapLimit)} is above the ${formatBytes(rssLimit)} rss limit: `
        + `add --max-old-space-size=${Math.floor((rssLimit * 0.75) / MiB)} to nodeArgs` });
  }

  // Per worker, so it is only certain to be wrong when one worker alone may pass the container's limit.
  if (known(rssLimit) && known(cgroupLimit) && rssLimit > cgroupLimit) {
    out.push({ code: ADVICE.RSS_LIMIT_ABOVE_CGROUP,
      message: `rss limit ${formatBytes(rssLimit)} is above the ${formatBytes(cgroupLimit)} cgroup limit: `
        + 'the OOM killer acts first' });
  }

  if (known(fds) && fds > A.fds) {
    out.push({ code: ADVICE.FD_GROWTH,
      message: `${fds} open file descriptors: sockets or files may be leaking; check keep-alive agents and pools` });
  }
  if (known(handles) && handles > A.handles) {
    out.push({ code: ADVICE.HANDLES,
      message: `${handles} active handles: timers or sockets may be leaking; check keep-alive agents and pools` });
  }
  return out;
}
