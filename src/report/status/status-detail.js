// The selected slot's detail pane, pure: a chart of the slot's history across its workers (the
// `history` op's bucketed range), the rss (or heap, native…) limit as a line, each recycle marked
// with its reason; under it the memory parts, GC share and loop delay over the range, and the leak
// named in the worker with its rate, time to limit and top sites, and what held it in the worker
// the slot's last recycle replaced.
import { formatBytes, formatDuration } from '../../units.js';
import { paint, clean, truncate } from './ansi.js';
import { lineChart, formatSpan, markOf } from './chart.js';

export { markOf } from './chart.js';
import { growthPerMinute, shortBytes, shortMs, percent } from './status-columns.js';
import { describeSite } from '../words.js';
import { describeHeld } from '../retainer-words.js';
import { memoryOf } from '../../sample/memory-of.js';

/** The ranges the `t` key steps through. */
export const RANGES = Object.freeze([5 * 60_000, 30 * 60_000, 6 * 3600_000]);
/** The series the `s` key steps through, and the limit each is held to. */
export const CHART_SERIES = Object.freeze([
  { key: 'rss', label: 'rss', limit: 'rss' },
  { key: 'heapUsed', label: 'heap used', limit: 'heapUsed' },
  { key: 'external', label: 'external', limit: null },
  { key: 'native', label: 'native', limit: 'native' },
  { key: 'children', label: 'children', limit: null },
]);
const MIN_CHART = 6; // 3 plot rows and the axes: below that the chart says nothing
const MAX_CHART = 60;
const TOP_SITES = 3;

/**
 * Lines of the detail pane, at most `height`. `view`: { range, series } indexes into RANGES and
 * CHART_SERIES, `data`: the history range for this slot (or null: the snapshot's trail is drawn).
 */
export function detailPane(slot, { snapshot, view = {}, width, height, color = false }) {
  if (!slot || height < 1) return [];
  const rangeMs = RANGES[view.range ?? 0] ?? RANGES[0];
  const series = CHART_SERIES[view.series ?? 0] ?? CHART_SERIES[0];
  const limit = series.limit ? snapshot.limits?.[series.limit] ?? null : null;
  const data = view.data && view.data.slot === slot.slot ? view.data : null;
  const now = data?.to ?? snapshot.now;
  const values = data ? data[series.key] ?? [] : series.key === 'rss' ? trail(slot, snapshot, rangeMs) : [];
  const marks = (data?.events ?? []).map((e) => ({ t: e.t, label: markOf(e) })).filter((m) => m.label);

  const title = [
    paint(`slot ${slot.slot}`, 'bold', color),
    `${series.label} MiB, last ${formatSpan(rangeMs)}`,
    limit !== null ? paint(`┄ limit ${formatBytes(limit)}`, 'red', color) : null,
    marks.length ? paint(`▲ ${marks.length} recycle${marks.length > 1 ? 's' : ''}`, 'yellow', color) : null,
  ].filter(Boolean).join('  ');
  const under = [...partsLines(slot, data), ...leakLines(slot.leak, color), ...heldLines(slot.retainers)].map((l) => truncate(l, width));
  const room = height - 1 - under.length;
  const chartHeight = Math.min(MAX_CHART, room);
  const chart = chartHeight >= MIN_CHART
    ? lineChart({ values, from: now - rangeMs, to: now, limit, marks, width, height: chartHeight, color })
    : [];
  return [truncate(title, width), ...chart, ...under].slice(0, height);
}

/** Rows the pane would like: title, a full chart, what goes under it. */
export function detailWants(slot) {
  if (!slot) return 0;
  return 1 + MAX_CHART + 2 + (slot.leak ? 1 + Math.min(TOP_SITES, slot.leak.sites?.length ?? 0) : 0) + (slot.retainers?.held?.length ? 1 : 0);
}

// The fleet trail (max of each few seconds over the last minutes) when no history came.
function trail(slot, snapshot, rangeMs) {
  const step = snapshot.trail?.stepMs ?? null;
  const values = slot.history ?? [];
  if (!step) return values;
  const span = values.length * step;
  const pad = Math.max(0, Math.round((rangeMs - span) / step));
  return [...new Array(pad).fill(null), ...values.slice(-Math.round(rangeMs / step))];
}

function partsLines(slot, data) {
  const s = slot.last ?? {};
  const b = (v) => shortBytes(v ?? null);
  const parts = `rss ${b(memoryOf(s))}  heap ${b(s.heapUsed)}/${b(s.heapTotal)}  external ${b(s.external)}  native ${b(s.native)}  children ${b(s.childrenRss)} (${s.children ?? '-'})  pss ${b(s.treePss ?? s.pss)}`;
  const peak = (k) => { const v = (data?.[k] ?? []).filter((x) => x !== null); return v.length ? Math.max(...v) : null; };
  const lastOf = (k) => { const v = (data?.[k] ?? []).filter((x) => x !== null); return v.length ? v.at(-1) : null; };
  // GC time between two polls: the series is gcSharePoll, gcShare in documents from before its rename.
  const gcKey = data && 'gcSharePoll' in data ? 'gcSharePoll' : 'gcShare';
  const gc = data ? `gc ${percent(lastOf(gcKey))} (peak ${percent(peak(gcKey))})` : `gc ${s.gcCount ?? '-'} (${formatDuration(s.gcMs ?? null)})`;
  const delay = data ? `delay p99 ${shortMs(lastOf('delayP99'))} (peak ${shortMs(peak('delayP99'))})` : `delay p99 ${shortMs(s.delayP99 ?? null)}`;
  const more = `${gc}  ${delay}  heap growth ${growthPerMinute(slot.trend?.heapPerSec ?? null)}  fds ${s.fds ?? '-'}  handles ${s.handles ?? '-'}  requests ${s.requests ?? '-'}`;
  return [parts, more];
}

// The leak named in the worker: kind, rate, time to the nearest limit, then its top sites.
function leakLines(L, color) {
  if (!L) return [];
  if (L.kind === 'handles') return [paint(`leak handles: ${clean(L.summary ?? '')}`, 'yellow', color)];
  const eta = L.projectedLimitInSec != null ? `  limit in ${formatDuration(L.projectedLimitInSec * 1000)}` : '';
  const head = paint(`leak ${clean(L.kind)} ${growthPerMinute(L.growthBytesPerSec ?? null)}${eta}${L.sites?.length ? '  allocated by' : ''}`, 'yellow', color);
  const sites = (L.sites ?? []).slice(0, TOP_SITES).map((x) => `  ${String(Math.round((x.share ?? 0) * 100)).padStart(3)}% ${clean(describeSite(x))}${x.bytesPerMin != null ? ` ${shortBytes(x.bytesPerMin)}/m` : ''}`);
  return [head, ...sites];
}

// What held the slot's leak in the worker it replaced (its heap snapshot): the first holder.
function heldLines(R) {
  return R?.held?.length ? [clean(describeHeld(R.held))] : [];
}
