// The slot table's columns: what each shows, how wide it is, how important it is, and when it is
// coloured. The view drops columns by priority on narrow terminals; `essential` ones always stay.

import { STATES } from '../../constants.js';
import { formatDuration } from '../../units.js';

const KI = 1024;

/** Compact size for table cells: '512B', '980K', '9.5M', '312M', '1.5G'; null is '-'. */
export function shortBytes(bytes) {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '-';
  const sign = bytes < 0 ? '-' : '';
  let v = Math.abs(bytes);
  if (v < KI) return `${sign}${Math.round(v)}B`;
  const units = ['K', 'M', 'G', 'T'];
  let i = -1;
  // Move up a unit before the integer part reaches four digits, so a cell stays ≤ 4 characters.
  while (i < units.length - 1 && (i < 0 || v >= 999.5)) { v /= KI; i++; }
  return `${sign}${v < 9.95 ? v.toFixed(1) : Math.round(v)}${units[i]}`;
}

/** Growth per minute from bytes per second: '+2.1M/m'; null is '-'. */
export function growthPerMinute(bytesPerSec) {
  if (bytesPerSec === null || bytesPerSec === undefined || !Number.isFinite(bytesPerSec)) return '-';
  const perMin = bytesPerSec * 60;
  return `${perMin >= 0 ? '+' : ''}${shortBytes(perMin)}/m`;
}

/** Milliseconds as '850us', '3.2ms', '120ms', '1.4s'; null is '-'. */
export function shortMs(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 1) return `${Math.round(ms * 1000)}us`;
  if (ms < 10) return `${ms.toFixed(1)}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  return `${(ms / 1000).toFixed(1)}s`;
}

/** A fraction as a percentage: '42%', '1.5%' under 10 %; null is '-'. */
export function percent(fraction) {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return '-';
  const p = fraction * 100;
  return p < 9.95 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`;
}

/** 'red' at ≥ 90 % of a limit, 'yellow' at ≥ 75 %, else null; no limit or no value is null. */
export function limitTone(value, limit) {
  if (value === null || value === undefined || !limit) return null;
  if (value >= 0.9 * limit) return 'red';
  if (value >= 0.75 * limit) return 'yellow';
  return null;
}

// Growth below this is noise in a per-minute display ('+0.4K/m'); above it, a trend the user
// should notice. The trend is already a regression over the leak window, so it is "sustained".
const GROWTH_NOTICE_PER_SEC = KI / 60;

/** Uptime of a live slot, ms; null for an exited slot or an unknown start. */
export function slotUptime(slot, now) {
  if (slot.state === STATES.EXITED || slot.startedAt === null || slot.startedAt === undefined) return null;
  return Math.max(0, now - slot.startedAt);
}

/**
 * Share of wall time spent in GC over the worker's whole life (its gcMs since it started), 0..1,
 * or null. A slow drift, not the last minute: the detail pane shows the share between polls.
 */
export function gcShareLifetime(slot) {
  const s = slot.last;
  if (!s || s.gcMs === null || s.gcMs === undefined || slot.startedAt === null || slot.startedAt === undefined) return null;
  const alive = s.t - slot.startedAt;
  return alive > 0 ? Math.min(1, s.gcMs / alive) : null;
}

const val = (slot, key) => (slot.last ? slot.last[key] ?? null : null);

/**
 * Column specs, in display order. `priority`: lower is kept first when the terminal is narrow.
 * `cell(slot, ctx)` returns { text, tone } with ctx = { limits, now }.
 */
export const COLUMNS = [
  { key: 'slot', title: 'SLOT', width: 4, align: 'right', essential: true,
    cell: (s) => ({ text: String(s.slot) }) },
  { key: 'pid', title: 'PID', width: 7, align: 'right', essential: true,
    cell: (s) => ({ text: s.pid === null || s.pid === undefined ? '-' : String(s.pid) }) },
  { key: 'state', title: 'STATE', width: 8, align: 'left', essential: true,
    cell: (s) => ({ text: s.state, tone: s.state === STATES.DRAINING || s.state === STATES.KILLING ? 'yellow' : null }) },
  { key: 'uptime', title: 'UP', width: 7, align: 'right', priority: 1,
    cell: (s, ctx) => ({ text: formatDuration(slotUptime(s, ctx.now)) }) },
  { key: 'rss', title: 'RSS', width: 5, align: 'right', essential: true,
    cell: (s, ctx) => ({ text: shortBytes(val(s, 'treeRss')), tone: limitTone(val(s, 'treeRss'), ctx.limits.rss) }) },
  { key: 'heap', title: 'HEAP/MAX', width: 9, align: 'right', essential: true,
    cell: (s, ctx) => {
      const used = val(s, 'heapUsed');
      const cap = val(s, 'heapLimit');
      // The configured heapUsed limit is the one that recycles; V8's own limit is the crash line.
      const tone = limitTone(used, ctx.limits.heapUsed) ?? limitTone(used, cap);
      return { text: `${shortBytes(used)}/${shortBytes(cap)}`, tone };
    } },
  { key: 'native', title: 'NATIVE', width: 6, align: 'right', priority: 2,
    cell: (s, ctx) => ({ text: shortBytes(val(s, 'native')), tone: limitTone(val(s, 'native'), ctx.limits.native) }) },
  { key: 'growth', title: 'GROWTH', width: 7, align: 'right', essential: true,
    cell: (s) => {
      const g = s.trend ? s.trend.rssPerSec ?? null : null;
      return { text: growthPerMinute(g), tone: g !== null && g > GROWTH_NOTICE_PER_SEC ? 'yellow' : null };
    } },
  { key: 'spark', title: 'RSS TREND', width: 10, align: 'left', essential: true, flex: true, cell: null },
  { key: 'elu', title: 'ELU', width: 4, align: 'right', priority: 3,
    cell: (s) => ({ text: percent(val(s, 'elu')), tone: limitTone(val(s, 'elu'), 1) }) },
  { key: 'p99', title: 'P99', width: 6, align: 'right', priority: 5,
    cell: (s) => {
      const d = val(s, 'delayP99');
      return { text: shortMs(d), tone: d === null ? null : d >= 1000 ? 'red' : d >= 100 ? 'yellow' : null };
    } },
  // Titled short for the width; the figure is gcShareLifetime's.
  { key: 'gcLifetime', title: 'GC', width: 5, align: 'right', priority: 6,
    cell: (s) => ({ text: percent(gcShareLifetime(s)), tone: limitTone(gcShareLifetime(s), 0.25) }) },
  { key: 'recycles', title: 'RCY', width: 3, align: 'right', priority: 4,
    cell: (s) => ({ text: String(s.recycles ?? '-') }) },
  { key: 'restarts', title: 'RST', width: 3, align: 'right', priority: 7,
    cell: (s) => ({ text: String(s.restarts ?? '-'), tone: s.restarts > 0 ? 'yellow' : null }) },
];

/**
 * Which columns fit in `width` and how wide the sparkline is. Each column costs its width plus
 * one separator, after a one-column selection marker.
 */
export function chooseColumns(width, { sparkMax = 40 } = {}) {
  const cost = (c) => c.width + 1;
  let used = 1 + COLUMNS.filter((c) => c.essential).reduce((n, c) => n + cost(c), 0);
  const keep = new Set(COLUMNS.filter((c) => c.essential).map((c) => c.key));
  const optional = COLUMNS.filter((c) => !c.essential).sort((a, b) => a.priority - b.priority);
  for (const c of optional) {
    if (used + cost(c) <= width) { keep.add(c.key); used += cost(c); }
  }
  const spark = COLUMNS.find((c) => c.key === 'spark');
  let sparkWidth = Math.min(sparkMax, spark.width + Math.max(0, width - used));
  if (used > width) {
    // Too narrow even for the essentials: the sparkline gives way first.
    sparkWidth = Math.max(0, spark.width - (used - width));
    if (sparkWidth < 3) { keep.delete('spark'); sparkWidth = 0; }
  }
  return { columns: COLUMNS.filter((c) => keep.has(c.key)), sparkWidth };
}
