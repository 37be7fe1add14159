// The slot history as one documented JSON shape (README "nodesup history"), for scripts that plot
// it and for the status view's chart. Columns, not rows: one array per series, index-aligned with
// `t` (ms since the epoch, the primary's clock); bytes for memory, a 0..1 share for gcSharePoll
// (GC time between two polls over the time between them), ms for delayP99; null where a value was
// unknown or a bucket held no poll.
import { parseSlot } from '../../slot.js';
import { NodesupError } from '../../errors.js';
import { SERIES } from './slot-history.js';

export const HISTORY_FORMAT = 1;
// Series renamed within format 1: the old name stays, a copy of the new one, for the scripts that
// read it; listed under `deprecated` with the name to read instead.
export const DEPRECATED_SERIES = Object.freeze({ gcShare: 'gcSharePoll' });
// A view asks for at most this many buckets: a wide terminal's braille chart, with room to spare.
const MAX_POINTS = 2000;

/**
 * What the `history` control op answers. With `rangeMs` and `points`: one slot over the last
 * rangeMs in that many buckets (the max of each), for a chart. Without: every kept point of each
 * slot (or of `slot`), full resolution and coarse.
 */
export function historyDocument({ slotHistory, config, now, workers }, { slot = null, rangeMs = null, points = null } = {}) {
  const only = slot === null || slot === undefined ? null : parseSlot(slot, workers);
  const head = {
    format: HISTORY_FORMAT, name: config.name, now, pollInterval: config.pollInterval,
    series: [...SERIES, ...Object.keys(DEPRECATED_SERIES)], deprecated: { ...DEPRECATED_SERIES },
    limits: { rss: config.limits.rss ?? null, heapUsed: config.limits.heapUsed ?? null, native: config.limits.native ?? null },
  };
  if (rangeMs !== null && points !== null) {
    if (only === null) throw new NodesupError('NODESUP_ERR_USAGE', 'history: a range needs a slot; pass one');
    const n = Math.min(MAX_POINTS, Math.max(1, Math.floor(Number(points) || 1)));
    const range = Math.max(1000, Number(rangeMs) || 0);
    return { ...head, range: withAliases(slotHistory.range(only, { now, rangeMs: range, points: n })) };
  }
  return { ...head, slots: slotHistory.dump(only).map((s) => ({ ...s, fine: withAliases(s.fine), coarse: withAliases(s.coarse) })) };
}

// Columns under their deprecated names too: the same arrays.
function withAliases(columns) {
  if (!columns) return columns;
  const out = { ...columns };
  for (const [old, now] of Object.entries(DEPRECATED_SERIES)) out[old] = columns[now];
  return out;
}
