// The live status view as a pure function: snapshot + terminal size → lines. No I/O, no clock
// (time comes from snapshot.now), so it is tested with plain objects and the screen shell stays
// thin. Lines never exceed `width` visible columns and there are never more than `height` lines.

import { STATES } from '../../constants.js';
import { formatBytes, formatDuration } from '../../units.js';
import { paint, visibleWidth, truncate, pad, clean } from './ansi.js';
import { chooseColumns, limitTone, percent } from './status-columns.js';
import { detailPane, detailWants } from './status-detail.js';

export { visibleWidth } from './ansi.js';
export { renderInspect } from '../inspect-view.js';
export { describeRecycle } from '../words.js';
import { describeRecycle } from '../words.js';

const BARS = '▁▂▃▄▅▆▇█';
// Below this spread the history is flat for a person: a few hundred KiB of allocator noise must
// not draw a mountain.
const SPARK_MIN_RANGE = 4 * 1024 * 1024;
const FOOTER = [['q', 'quit'], ['↑↓', 'select'], ['x', 'recycle'], ['r', 'reload'], ['i', 'inspect'], ['t', 'range'], ['s', 'series']];

/** Block-character sparkline of the last `width` values, scaled to their min..max (nulls are blanks). */
export function sparkline(values, width, { minRange = 0 } = {}) {
  if (!Array.isArray(values) || !(width > 0)) return '';
  const shown = values.slice(-Math.floor(width));
  const nums = shown.filter((v) => typeof v === 'number' && Number.isFinite(v));
  if (!nums.length) return ' '.repeat(shown.length);
  const min = Math.min(...nums);
  const range = Math.max(Math.max(...nums) - min, minRange);
  return shown
    .map((v) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) return ' ';
      return BARS[range > 0 ? Math.round(((v - min) / range) * (BARS.length - 1)) : 0];
    })
    .join('');
}

/**
 * One row a slot, its other live workers (a replacement starting, an old worker draining) in
 * `others`. Snapshots from before that shape have a row a worker, several with the same slot:
 * the serving one (`current` not false, else the newest) keeps the row and carries the rest.
 */
export function slotRows(slots) {
  if (!Array.isArray(slots)) throw new TypeError(`snapshot.slots: expected an array, got ${typeof slots}`);
  const bySlot = new Map();
  for (const row of slots) bySlot.set(row.slot, [...(bySlot.get(row.slot) ?? []), row]);
  return [...bySlot.values()].map((rows) => {
    if (rows.length === 1) return rows[0];
    const main = rows.find((r) => r.current !== false) ?? rows.at(-1);
    return { ...main, others: [...(main.others ?? []), ...rows.filter((r) => r !== main)] };
  });
}

/** The slot ids in table order, once each: what the selection moves over. */
export function slotIds(snapshot) {
  return slotRows(snapshot?.slots ?? []).map((s) => s.slot);
}

const SHORT_STATE = { spawning: 'new', draining: 'drain', killing: 'kill', exited: 'gone' };

/**
 * The slot's other workers in at most `room` columns: '↻ 4242 draining', shorter when it must
 * ('↻ 4242 drain', '↻4242 drain', '↻ 4242'); '+1' when there are two. Empty when there are none
 * or no room. The trend cell gives the mark its whole width first: during a recycle, which worker
 * is leaving says more than a few columns of trail.
 */
export function othersMark(others, room) {
  if (!others?.length) return '';
  const [o] = others;
  const pid = o.pid ?? '-';
  const more = others.length > 1 ? ` +${others.length - 1}` : '';
  const short = SHORT_STATE[o.state] ?? clean(o.state ?? '?');
  const forms = [`↻ ${pid} ${clean(o.state ?? '?')}${more}`, `↻ ${pid} ${short}${more}`, `↻${pid} ${short}${more}`, `↻ ${pid}${more}`, '↻'];
  return forms.find((f) => visibleWidth(f) <= room) ?? '';
}

/**
 * Lines of the status view for one snapshot. `selected` is a slot id (not an index); a finite
 * `height` pads so the keys sit on the bottom row, Infinity prints everything once. `view`: the
 * detail chart's { range, series } and its history `data` (status-detail.js).
 */
export function renderStatus(snapshot, { width = 80, height = Infinity, selected = null, color = false, message = null, view = {} } = {}) {
  width = Math.max(1, Math.floor(width || 80));
  height = Number.isFinite(height) ? Math.max(0, Math.floor(height)) : Infinity;
  const slots = slotRows(snapshot.slots ?? []);
  const ctx = { limits: snapshot.limits ?? {}, now: snapshot.now };
  const header = headerLines(snapshot, slots, width, color);
  const { columns, sparkWidth } = chooseColumns(width);
  const head = paint(' ' + columns.map((c) => pad(c.title, c.key === 'spark' ? sparkWidth : c.width, c.align)).join(' '), 'dim', color);
  const rows = slots.length ? slots.map((s) => slotRow(s, columns, sparkWidth, ctx, s.slot === selected, color, width)) : ['  no workers'];
  const chosen = slots.find((s) => s.slot === selected);
  const recycles = recycleLines(snapshot.recentRecycles ?? [], color);
  const msg = message ? [messageLine(message, color)] : [];
  const footer = [FOOTER.map(([k, what]) => `${paint(k, 'bold', color)} ${what}`).join('  ')];

  // Space goes to what matters most: who we are, the table, the keys, feedback, then the rest.
  let left = height;
  const take = (n) => { const k = Math.max(0, Math.min(n, left)); left -= k; return k; };
  const nHead = take(1);
  const nTableHead = take(1);
  const nFirstRow = take(1);
  const nFooter = take(1);
  const nMsg = take(msg.length);
  const nMoreRows = take(rows.length - 1);
  const nHeadRest = take(header.length - 1);
  const gapTable = take(1);
  // The selected slot's chart takes the rest, but for the recent recycles on a tall terminal.
  const gapDetail = chosen && left >= 4 ? take(1) : 0;
  const keepForRecycles = recycles.length > 1 && left >= 30 ? Math.min(recycles.length, 8) + 1 : 0;
  const detailRoom = Number.isFinite(left) ? Math.min(left - keepForRecycles, detailWants(chosen)) : 16;
  const detail = gapDetail ? detailPane(chosen, { snapshot, view, width, height: detailRoom, color }) : [];
  const nDetail = take(detail.length);
  const gapRecycles = left >= 3 && recycles.length > 1 ? take(1) : 0;
  const nRecycles = gapRecycles ? take(Math.min(recycles.length, left)) : 0;

  const body = [
    ...header.slice(0, nHead + nHeadRest),
    ...blank(gapTable),
    ...(nTableHead ? [head] : []),
    ...windowRows(rows, slots, selected, nFirstRow + nMoreRows, color),
    ...blank(gapDetail), ...detail.slice(0, nDetail),
    ...blank(gapRecycles), ...(nRecycles ? [recycles[0], ...recycles.slice(1 - nRecycles)] : []),
  ];
  const tail = [...msg.slice(0, nMsg), ...footer.slice(0, nFooter)];
  // Keep the keys on the bottom row of the terminal.
  const filler = Number.isFinite(height) ? blank(height - body.length - tail.length) : [];
  return [...body, ...filler, ...tail].map((l) => truncate(l, width));
}

function blank(n) {
  return Array.from({ length: Math.max(0, n) }, () => '');
}

// When the table does not fit, show a window around the selected slot and say what is hidden.
function windowRows(rows, slots, selected, room, color) {
  if (room >= rows.length) return rows;
  const at = Math.max(0, slots.findIndex((s) => s.slot === selected));
  if (room <= 1) return room ? [rows[at]] : [];
  const shown = room - 1;
  const start = Math.min(Math.max(0, at - Math.floor(shown / 2)), rows.length - shown);
  const below = rows.length - start - shown;
  return [...rows.slice(start, start + shown), paint(`  … ${start} more above, ${below} more below (↑↓)`, 'dim', color)];
}

function slotRow(slot, columns, sparkWidth, ctx, isSelected, color, width) {
  const cells = columns.map((c) => {
    if (c.key === 'spark') return trendCell(slot, sparkWidth, color);
    const { text, tone = null } = c.cell(slot, ctx);
    return paint(pad(clean(text), c.width, c.align), tone, color);
  });
  let line = [isSelected ? '>' : ' ', ...cells].join(' ');
  if (slot.state === STATES.EXITED || slot.state === STATES.SPAWNING) line = paint(line, 'dim', color);
  return isSelected ? paint(pad(line, width), 'inverse', color) : line;
}

// The slot's trail, and at its right the mark of the slot's other workers while it recycles.
function trendCell(slot, width, color) {
  const mark = othersMark(slot.others, width);
  const room = mark ? width - visibleWidth(mark) - 1 : width;
  const line = room >= 3 ? sparkline(slot.history ?? [], room, { minRange: SPARK_MIN_RANGE }) : '';
  const trend = line.trim() ? line : mark && room < 3 ? '' : '-';
  if (!mark) return pad(trend, width, 'right');
  return `${pad(trend, Math.max(0, room), 'right')}${room >= 0 ? ' ' : ''}${paint(mark, 'yellow', color)}`;
}

function headerLines(snap, slots, width, color) {
  // One row a slot, whatever its recycle: count the rows' workers, not the others riding along.
  const ready = slots.filter((s) => s.state === STATES.READY).length;
  const workers = snap.workers ?? slots.length;
  const readyTone = ready === 0 && workers ? 'red' : ready < workers ? 'yellow' : null;
  const up = snap.startedAt != null && snap.now != null ? formatDuration(snap.now - snap.startedAt) : '-';
  const first = [
    paint(`nodesup ${clean(snap.name ?? '')}`, 'bold', color),
    `pid ${snap.pid ?? '-'}`,
    `up ${up}`,
    paint(`${ready}/${workers} ready`, readyTone, color),
  ];
  const l = snap.limits ?? {};
  const limits = [
    l.rss != null && `rss ${formatBytes(l.rss)}`,
    l.heapUsed != null && `heap ${formatBytes(l.heapUsed)}`,
    l.native != null && `native ${formatBytes(l.native)}`,
    l.maxAge != null && `age ${formatDuration(l.maxAge)}`,
    l.maxRequests != null && `requests ${l.maxRequests}`,
  ].filter(Boolean);
  const second = [`limits ${limits.length ? limits.join(' ') : 'none'}`];
  const cg = snap.cgroup ?? {};
  if (cg.limit != null) {
    const share = cg.current != null ? ` (${percent(cg.current / cg.limit)})` : '';
    second.push(paint(`cgroup ${formatBytes(cg.current)} of ${formatBytes(cg.limit)}${share}`, limitTone(cg.current, cg.limit), color));
  } else if (cg.current != null) second.push(`cgroup ${formatBytes(cg.current)} (no limit)`);
  // A draining worker still holds its memory: the total counts every live worker.
  const rss = slots.flatMap((s) => [s, ...(s.others ?? [])]).map((w) => w.last?.treeRss).filter((v) => typeof v === 'number');
  const total = rss.length ? rss.reduce((a, b) => a + b, 0) : null;
  // The limit in force, as the supervisor resolved it (a default derived from the container included).
  const totalLimit = snap.totalRssLimit ?? l.totalRss?.bytes ?? (l.totalRss?.fraction != null && cg.limit != null ? l.totalRss.fraction * cg.limit : null);
  const totalText = `total rss ${formatBytes(total)}${totalLimit != null ? ` of ${formatBytes(totalLimit)}` : ''}`;
  second.push(paint(totalText, limitTone(total, totalLimit), color));
  return [...pack(first, width), ...pack(second, width)];
}

// Greedy packing of header chunks into as few lines as the width allows.
function pack(chunks, width, sep = '   ') {
  const lines = [];
  for (const c of chunks) {
    const last = lines.length - 1;
    if (last >= 0 && visibleWidth(lines[last]) + sep.length + visibleWidth(c) <= width) lines[last] += sep + c;
    else lines.push(c);
  }
  return lines;
}

function recycleLines(events, color) {
  if (!events.length) return [];
  const lines = events.map((ev) => {
    const up = ev.uptimeMs != null ? ` after ${formatDuration(ev.uptimeMs)}` : '';
    const who = `slot ${ev.slot ?? '-'} pid ${ev.pid ?? '-'}`;
    return `${paint(clock(ev.time), 'dim', color)} ${who} ${paint(describeRecycle(ev), 'yellow', color)}${up}`;
  });
  return [paint('recent recycles', 'bold', color), ...lines];
}

// Local wall-clock time, as people compare it with their own clock and logs.
function clock(time) {
  const d = new Date(time);
  if (time == null || Number.isNaN(d.getTime())) return '--:--:--';
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function messageLine(message, color) {
  const { text, level } = typeof message === 'string' ? { text: message, level: 'info' } : message;
  const tone = level === 'error' ? 'red' : level === 'warn' ? 'yellow' : 'cyan';
  return paint(clean(text), tone, color);
}
