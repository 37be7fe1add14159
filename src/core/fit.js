// Whether the workers fit in the container's memory, and what to lower when the kernel's OOM killer
// says they did not. Pure: numbers in, advice out ({code, message}) or null; unknown inputs give none.
import { formatBytes } from '../units.js';

const MiB = 1024 * 1024;
// What a worker may take of the container at most, so the primary and the kernel keep some room.
const HEADROOM = 0.9;

/**
 * The over-commit warning (DESIGN §3a `overcommit`): workers × V8 heap limit (plus a measured native
 * baseline), or workers × limits.rss, exceeds the container's memory limit.
 * @param {{workers:number, cgroupLimit:number|null, rssLimit:number|null, heapLimit:number|null, nativeBaseline:number|null, totalRss:object|null}} o
 * @returns {{code:'overcommit', message:string, need:number, limit:number}|null}
 */
export function overcommit({ workers, cgroupLimit, rssLimit, heapLimit, nativeBaseline, totalRss = null }) {
  if (!cgroupLimit || !(workers > 0)) return null;
  const share = Math.floor((cgroupLimit * HEADROOM) / workers);
  const fix = totalRss ? 'or fewer workers' : "fewer workers, or limits.totalRss: '90%'";
  if (rssLimit !== null && rssLimit !== undefined && workers * rssLimit > cgroupLimit) {
    return {
      code: 'overcommit', need: workers * rssLimit, limit: cgroupLimit,
      message: `${workers} workers × limits.rss ${formatBytes(rssLimit)} > container limit ${formatBytes(cgroupLimit)}: set limits.rss ≤ ${formatBytes(share)}, ${fix}`,
    };
  }
  if (heapLimit) {
    const need = workers * (heapLimit + (nativeBaseline ?? 0));
    if (need > cgroupLimit) {
      const oldSpaceMb = Math.max(16, Math.floor((share - (nativeBaseline ?? 0)) / MiB));
      return {
        code: 'overcommit', need, limit: cgroupLimit,
        message: `${workers} workers × (V8 heap limit ${formatBytes(heapLimit)}${nativeBaseline ? ` + ${formatBytes(nativeBaseline)} native` : ''}) > container limit ${formatBytes(cgroupLimit)}: nodeArgs ['--max-old-space-size=${oldSpaceMb}'], ${fix}`,
      };
    }
  }
  return null;
}

/**
 * Advice after the kernel's OOM killer ended a worker: which limit to lower so that nodesup
 * recycles the worker before the kernel kills it.
 * @param {{slot:number, lastRss:number|null, rssLimit:number|null, cgroupLimit:number|null, workers:number}} o
 */
export function oomAdvice({ slot, lastRss, rssLimit, cgroupLimit, workers }) {
  const at = lastRss ? ` at ${formatBytes(lastRss)}` : '';
  if (!cgroupLimit) {
    return { code: 'oom-kill', message: `slot ${slot} was killed by the kernel's OOM killer${at}: set limits.rss below what the machine can give each worker` };
  }
  const share = Math.floor((cgroupLimit * HEADROOM) / workers);
  const within = `container limit ${formatBytes(cgroupLimit)}, ${workers} workers`;
  if (rssLimit === null || rssLimit === undefined || rssLimit > share) {
    return { code: 'oom-kill', message: `slot ${slot} was killed by the kernel's OOM killer${at} (${within}): set limits.rss ≤ ${formatBytes(share)} so nodesup recycles it first` };
  }
  return { code: 'oom-kill', message: `slot ${slot} was killed by the kernel's OOM killer${at} (${within}): the workers together overflow it; set limits.totalRss: '90%' or run fewer workers` };
}
