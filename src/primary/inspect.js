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
import { snapshotRoom } from '../core/policy/fit.js';
import { workerTrend, stepOf, gcShare, scavenger, nativeRising } from '../core/forecast/worker-trend.js';
import { detectLeak } from '../core/leak/leak-detector.js';
import { advise } from '../core/policy/advice.js';
import { adviceText } from '../report/advice-words.js';

const worded = (list) => list.map((a) => ({ ...a, message: adviceText(a) }));

/**
 * The inspect report of the worker serving in `slot`.
 * @param {object} o
 * @param {{current:any}[]} o.slots
 * @param {import('./lifecycle/pool.js').Pool} o.pool
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
    // Worded here too: `inspect --json` is read by people and scripts that want the sentence.
    advice: sample ? worded(advise({ ...sample, gcShare: share, ...scavenger(h.window, t), nativeRising: nativeRising(h.window, t) ?? undefined }, {
      limits, cgroupLimit, heapSpaces: detail?.heapSpaces?.map((x) => ({ space_name: x.name, space_size: x.size })) ?? null,
    })) : [],
  };
  if (heapSnapshot) report.heapSnapshot = await takeHeapSnapshot(pool, h, heapSnapshot, slot);
  return report;
}

// Which code retains the growth, as data (report/inspect-view.js words it): the sites a verdict
// named, how many confirmation points a suspected heap leak has, and why the profiler gave none.
function sitesView(found, points) {
  return {
    sites: found?.sites?.length ? found.sites : null,
    points: points.length,
    profiler: points.findLast((p) => p.profiler)?.profiler ?? null,
  };
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
