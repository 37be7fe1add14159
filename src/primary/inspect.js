// `nodesup inspect <slot>`: one live worker's memory breakdown, asked of its agent in detail.
import { KIND } from '../protocol.js';
import { NodesupError } from '../errors.js';
import { STATES } from '../constants.js';
import { countAnonMappings } from '../proc/memory.js';
import { adviceFor, workerTrend, stepOf, gcShare } from './leak-watch.js';
import { detectLeak } from '../core/leak-detector.js';

/** The inspect report of the worker serving in `slot`. */
export async function inspectWorker(sup, slot, { heapSnapshot } = {}) {
  const s = sup.slots[slot];
  if (!s) throw new NodesupError('NODESUP_ERR_USAGE', `slot: expected 0..${sup.slots.length - 1}, got ${JSON.stringify(slot)}`);
  const h = s.current;
  if (!h || h.state !== STATES.READY) throw new NodesupError('NODESUP_ERR_CONTROL', `slot ${slot} has no ready worker right now; try again in a moment`);
  const detail = await sup.pool.request(h, KIND.STATS, { detail: true }, 5000);
  const now = sup.now();
  const { leak, limits, pollInterval } = sup.config;
  const report = {
    slot, pid: h.pid, uptimeMs: now - h.startedAt, sample: h.window.last(), limits,
    heapSpaces: detail?.heapSpaces ?? null, gcByKind: detail?.gcByKind ?? null, gcShare: gcShare(h, now), resources: detail?.resources ?? null,
    execArgv: detail?.execArgv ?? null, mappings: countAnonMappings(h.pid),
    trend: workerTrend(h, sup.config, now), step: stepOf(sup, h, now),
    leak: leak ? detectLeak(h.window, { leak, limits, now, pollInterval, startedAt: h.readyAt ?? h.startedAt }) : null,
    advice: adviceFor(sup, h, now, detail?.heapSpaces?.map((x) => ({ space_name: x.name, space_size: x.size })) ?? null),
  };
  if (heapSnapshot) report.heapSnapshot = await sup.pool.request(h, KIND.HEAP_SNAPSHOT, { file: heapSnapshot }, 120_000);
  return report;
}
