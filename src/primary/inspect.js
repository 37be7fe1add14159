// `nodesup inspect <slot>`: one live worker's memory breakdown, asked of its agent in detail, with
// the same trend, leak and advice judgements the tick makes.
import { KIND } from '../protocol.js';
import { NodesupError } from '../errors.js';
import { STATES } from '../constants.js';
import { parseSlot } from '../slot.js';
import fs from 'node:fs';
import path from 'node:path';
import { countAnonMappings } from '../proc/memory.js';
import { readCgroup, readMemAvailable } from '../proc/cgroup.js';
import { snapshotRoom } from '../core/fit.js';
import { workerTrend, stepOf, gcShare, scavenger } from '../core/worker-trend.js';
import { detectLeak } from '../core/leak-detector.js';
import { advise } from '../core/advice.js';

/**
 * The inspect report of the worker serving in `slot`.
 * @param {object} o
 * @param {{current:any}[]} o.slots
 * @param {import('./pool.js').Pool} o.pool
 * @param {import('../types.js').Config} o.config
 * @param {number|null} o.cgroupLimit
 * @param {() => number} o.now
 * @param {(h:object) => object|null} [o.leakOf]  the latest leak the tick named in a worker
 * @param {(h:object) => {profiler:string|null, sites:object|null}[]} [o.pointsOf]  its confirmation points
 */
export async function inspectWorker({ slots, pool, config, cgroupLimit, now, leakOf = () => null, pointsOf = () => [] }, rawSlot, { heapSnapshot } = {}) {
  const slot = parseSlot(rawSlot, slots.length);
  const h = slots[slot].current;
  if (!h || h.state !== STATES.READY) throw new NodesupError('NODESUP_ERR_CONTROL', `slot ${slot} has no ready worker right now; try again in a moment`);
  const detail = await pool.request(h, KIND.STATS, { detail: true }, 5000);
  const t = now();
  const { leak, limits, pollInterval } = config;
  const sample = h.window.last();
  const share = gcShare(h.window, t);
  const report = {
    slot, pid: h.pid, uptimeMs: t - h.startedAt, sample, limits,
    heapSpaces: detail?.heapSpaces ?? null, gcByKind: detail?.gcByKind ?? null, gcShare: share, resources: detail?.resources ?? null,
    execArgv: detail?.execArgv ?? null, mappings: countAnonMappings(h.pid),
    trend: workerTrend(h, config, t), step: stepOf(h.window, leak, t),
    leak: (leak ? detectLeak(h.window, { leak, limits, now: t, pollInterval, startedAt: h.readyAt ?? h.startedAt }) : null) ?? leakOf(h),
    sites: sitesView(leakOf(h), pointsOf(h)),
    advice: sample ? advise({ ...sample, gcShare: share, ...scavenger(h.window, t) }, {
      limits, cgroupLimit, heapSpaces: detail?.heapSpaces?.map((x) => ({ space_name: x.name, space_size: x.size })) ?? null,
    }) : [],
  };
  if (heapSnapshot) report.heapSnapshot = await takeHeapSnapshot(pool, h, heapSnapshot, slot);
  return report;
}

// Which code retains the growth, or why that is not known.
function sitesView(found, points) {
  if (found?.sites?.length) return { sites: found.sites, why: null };
  const reason = points.findLast((p) => p.profiler)?.profiler;
  if (reason) return { sites: null, why: reason };
  if (!points.length) return { sites: null, why: 'no heap or Buffer leak suspected: the samplers run only while one is' };
  return { sites: null, why: 'a leak is suspected and being confirmed; sites follow with the verdict' };
}

// A heap snapshot costs about the heap's size again in the worker, and a file as large: refused,
// with the cheaper way named, when the container or the disk has no room for it.
async function takeHeapSnapshot(pool, h, file, slot) {
  const cg = readCgroup();
  const memoryHeadroom = cg.memoryLimit !== null && cg.memoryCurrent !== null ? cg.memoryLimit - cg.memoryCurrent : readMemAvailable();
  const room = snapshotRoom({ heapUsed: h.window.last()?.heapUsed ?? null, memoryHeadroom, diskFree: diskFree(path.dirname(file)) });
  if (!room.ok) {
    throw new NodesupError('NODESUP_ERR_NO_ROOM',
      `heap snapshot refused: ${room.why}; \`nodesup inspect ${slot}\` names the code that retains memory from the sampling heap profile, at a fraction of the cost`);
  }
  const r = await pool.request(h, KIND.HEAP_SNAPSHOT, { file }, 120_000);
  if (!r?.file) throw new NodesupError('NODESUP_ERR_CONTROL', `the heap snapshot of slot ${slot} failed or took over 120 s; nothing was written to ${file}`);
  let bytes = null;
  try { bytes = fs.statSync(r.file).size; } catch { /* removed already */ }
  return { file: r.file, bytes };
}

function diskFree(dir) {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}
