// `nodesup inspect <slot>`: one live worker's memory breakdown, asked of its agent in detail.
import { KIND } from '../protocol.js';
import { NodesupError } from '../errors.js';
import { STATES } from '../constants.js';
import { countAnonMappings } from '../proc/memory.js';

/** The inspect report of the worker serving in `slot`. */
export async function inspectWorker(sup, slot, { heapSnapshot } = {}) {
  const s = sup.slots[slot];
  if (!s) throw new NodesupError('NODESUP_ERR_USAGE', `slot: expected 0..${sup.slots.length - 1}, got ${JSON.stringify(slot)}`);
  const h = s.current;
  if (!h || h.state !== STATES.READY) throw new NodesupError('NODESUP_ERR_CONTROL', `slot ${slot} has no ready worker right now; try again in a moment`);
  const detail = await sup.pool.request(h, KIND.STATS, { detail: true }, 5000);
  const report = {
    slot, pid: h.pid, uptimeMs: sup.now() - h.startedAt, sample: h.window.last(), agent: detail, mappings: countAnonMappings(h.pid),
  };
  if (heapSnapshot) report.heapSnapshot = await sup.pool.request(h, KIND.HEAP_SNAPSHOT, { file: heapSnapshot }, 120_000);
  return report;
}
