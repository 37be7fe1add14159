// Whether the workers fit in the container's memory, and what to lower when the kernel's OOM killer
// says they did not. Pure: numbers in, advice out ({code, ...facts}, worded by report/advice-words.js)
// or null; unknown inputs give none.
import { ADVICE } from '../../constants.js';
import { workersBudget } from './memory-budget.js';

const MiB = 1024 * 1024;
// What a worker may take of the container at most, so the primary and the kernel keep some room.
const HEADROOM = 0.9;

/**
 * The over-commit warning (advice `overcommit`, docs/events.md): workers × V8 heap limit (plus a measured native
 * baseline), or workers × limits.rss, exceeds the container's memory limit.
 * @param {{workers:number, cgroupLimit:number|null, rssLimit:number|null, heapLimit:number|null, nativeBaseline:number|null, totalRss:object|null}} o
 * @returns {{code:'overcommit', need:number, limit:number}&object|null}
 */
export function overcommit({ workers, cgroupLimit, rssLimit, heapLimit, nativeBaseline, totalRss = null }) {
  if (!cgroupLimit || !(workers > 0)) return null;
  const share = Math.floor((cgroupLimit * HEADROOM) / workers);
  const totalRssSet = Boolean(totalRss);
  if (rssLimit !== null && rssLimit !== undefined && workers * rssLimit > cgroupLimit) {
    return { code: ADVICE.OVERCOMMIT, by: 'rss', need: workers * rssLimit, limit: cgroupLimit, workers, rssLimit, share, totalRssSet };
  }
  if (heapLimit) {
    const need = workers * (heapLimit + (nativeBaseline ?? 0));
    if (need > cgroupLimit) {
      const oldSpaceMb = Math.max(16, Math.floor((share - (nativeBaseline ?? 0)) / MiB));
      return { code: ADVICE.OVERCOMMIT, by: 'heap', need, limit: cgroupLimit, workers, heapLimit, nativeBaseline: nativeBaseline ?? null, oldSpaceMb, totalRssSet };
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
  const base = { code: ADVICE.OOM_KILL, slot, lastRss: lastRss || null, cgroupLimit: cgroupLimit || null, workers };
  if (!cgroupLimit) return { ...base, fix: 'below-machine' };
  const share = Math.floor((cgroupLimit * HEADROOM) / workers);
  if (rssLimit === null || rssLimit === undefined || rssLimit > share) return { ...base, fix: 'lower-rss', share };
  return { ...base, fix: 'together' };
}

/**
 * Start-up advice where memory.oom.group is 1 (Kubernetes ≥ 1.28 on cgroup v2): at the container's
 * limit the kernel kills every process in it at once, so one worker that grows takes the pod, the
 * primary and the serving workers with it. Said unless each worker's limits.rss leaves the others
 * and the primary their room: the workers' budget (memory-budget.js) shared out.
 * @param {{oomGroup:boolean|null, cgroupLimit:number|null, primaryRss:number|null, workers:number, rssLimit:number|null}} o
 */
export function oomGroupAdvice({ oomGroup, cgroupLimit, primaryRss, workers, rssLimit }) {
  if (oomGroup !== true || !(workers > 0)) return null;
  const budget = workersBudget({ cgroupLimit, primaryRss });
  if (!budget) return null;
  const share = Math.max(0, Math.floor(budget.bytes / workers));
  if (rssLimit !== null && rssLimit !== undefined && rssLimit <= share) return null;
  return { code: ADVICE.OOM_GROUP, cgroupLimit, workers, rssLimit: rssLimit ?? null, share };
}
