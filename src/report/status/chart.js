// A pure terminal line chart: values over time → lines of text. Braille cells give 2×4 dots per
// character, so an 80-column terminal draws 140-odd points; a y-axis labelled in MiB, a time axis,
// an optional limit drawn as a dashed row, and marks (recycles) as ▲ on the axis with a label
// under it. No I/O and no clock: `from`/`to` come in. Why not a chart library: the ones kept up
// pull in a terminal UI framework; this is ~150 lines with table tests (test/report/chart.test.js).
import { EVENTS } from '../../constants.js';
import { paint, clean } from './ansi.js';

const MiB = 1024 * 1024;
const BRAILLE = 0x2800;
// Dot bits of a braille cell, [column][row from the top].
const DOT = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];
export const LIMIT_CHAR = '┄';
export const MARK_CHAR = '▲';
const MAX_GAP = 3;

/** How a recycle or a crash reads as a chart mark; null for events that are not marks. */
export function markOf(ev) {
  if (ev.event === EVENTS.WORKER_RECYCLE) return clean(ev.reason ?? 'recycle');
  if (ev.event === EVENTS.WORKER_EXIT && !ev.planned) return ev.oomKill ? 'oom-kill' : 'crash';
  return null;
}

/** A round number ≥ v for the top of the axis: 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10^k. */
export function niceCeil(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v - 1e-9 * p) return m * p;
  return 10 * p;
}

/** A span of time as people say it: '30s', '5m', '2m30s', '6h', '1h30m'. */
export function formatSpan(ms) {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s / 60}m`;
  const m = Math.round(s / 60);
  return m % 60 ? `${Math.floor(m / 60)}h${m % 60}m` : `${m / 60}h`;
}

const mib = (v) => {
  const x = v / MiB;
  return x >= 10 || x === 0 ? String(Math.round(x)) : x.toFixed(1);
};

/**
 * Lines of a chart `width`×`height` characters (height ≥ 4: plot rows, axis, marks, times).
 * @param {object} o
 * @param {(number|null)[]} o.values  one per pixel column, oldest first (2 per character column)
 * @param {number} o.from @param {number} o.to  the time the values span, ms
 * @param {number|null} [o.limit]  bytes; drawn as a dashed row and labelled on the axis
 * @param {{t:number, label:string}[]} [o.marks]
 * @param {number} o.width @param {number} o.height @param {boolean} [o.color]
 */
export function lineChart({ values, from, to, limit = null, marks = [], width, height, color = false }) {
  const nums = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  const top = niceCeil((Math.max(MiB, ...nums, limit ?? 0) * 1.05) / MiB) * MiB;
  const labels = [mib(top), mib(top / 2), '0', ...(limit !== null ? [mib(limit)] : [])];
  const gutter = Math.max(...labels.map((l) => l.length)) + 1;
  const W = Math.max(1, width - gutter);
  const H = Math.max(1, height - 3);
  const PH = H * 4;
  const cells = Array.from({ length: H }, () => new Array(W).fill(0));
  const yOf = (v) => Math.min(PH - 1, Math.max(0, Math.round((v / top) * (PH - 1))));
  const dot = (x, y) => {
    const cx = x >> 1;
    if (cx >= W || x < 0) return;
    const row = PH - 1 - y;
    cells[row >> 2][cx] |= DOT[x & 1][row & 3];
  };
  // Each point at its time (values span from..to evenly), joined to the one before by a vertical
  // run, so a drop at a recycle is a line.
  // Fewer points than dot columns are joined by steps, and so are points across a gap of up to
  // MAX_GAP empty buckets (a poll that landed in the next one); a longer gap stays a gap.
  let prev = null;
  let gap = 0;
  for (let i = 0; i < values.length; i++) {
    const x = Math.min(W * 2 - 1, Math.floor(((i + 0.5) * W * 2) / values.length)); // the bucket's middle
    const v = values[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) { if (++gap > MAX_GAP) prev = null; continue; }
    gap = 0;
    const y = yOf(v);
    // A value holds until the next one (a step, not a slope): a drop is drawn at the time it was seen.
    if (prev !== null) for (let xx = prev.x + 1; xx < x; xx++) dot(xx, prev.y);
    const from = prev === null ? y : prev.y;
    for (let k = Math.min(from, y); k <= Math.max(from, y); k++) dot(x, k);
    prev = { x, y };
  }
  const limitRow = limit !== null && limit <= top ? H - 1 - (yOf(limit) >> 2) : -1;
  const colOf = (t) => Math.floor(((t - from) / Math.max(1, to - from)) * W);
  const markCols = marks.map((m) => ({ ...m, col: colOf(m.t) })).filter((m) => m.col >= 0 && m.col < W);

  const lines = [];
  for (let r = 0; r < H; r++) {
    let label = r === 0 ? labels[0] : r === H - 1 ? '0' : r === Math.floor((H - 1) / 2) && H >= 5 ? labels[1] : '';
    if (r === limitRow) label = mib(limit);
    let body = '';
    for (let c = 0; c < W; c++) {
      const bits = cells[r][c];
      if (bits) body += String.fromCharCode(BRAILLE + bits);
      else if (r === limitRow) body += paint(LIMIT_CHAR, 'red', color);
      else if (markCols.some((m) => m.col === c)) body += paint('┊', 'dim', color);
      else body += ' ';
    }
    const tick = r === limitRow ? paint(`${label.padStart(gutter - 1)}┤`, 'red', color) : `${label.padStart(gutter - 1)}${label ? '┤' : '│'}`;
    lines.push(tick + body);
  }
  // The axis with ▲ under each mark, then the marks' labels, then the times.
  const axis = Array.from({ length: W }, (_, c) => (markCols.some((m) => m.col === c) ? paint(MARK_CHAR, 'yellow', color) : '─'));
  lines.push(`${' '.repeat(gutter - 1)}└${axis.join('')}`);
  const row = new Array(W).fill(' ');
  // Newest first: each label starts under its ▲ (or ends at the right edge), where it does not touch another.
  for (const m of [...markCols].sort((a, b) => b.col - a.col)) {
    const text = m.label.slice(0, W);
    const at = Math.min(m.col, W - text.length);
    const free = (i) => i < 0 || i >= W || row[i] === ' ';
    let ok = free(at - 1) && free(at + text.length);
    for (let i = at; i < at + text.length; i++) ok &&= free(i);
    if (ok) for (let i = 0; i < text.length; i++) row[at + i] = paint(text[i], 'yellow', color);
  }
  lines.push(' '.repeat(gutter) + row.join(''));
  lines.push(' '.repeat(gutter) + timeRow(to - from, W));
  return lines;
}

// '-5m ... -2m30s ... now', spread over w columns.
function timeRow(span, w) {
  const left = `-${formatSpan(span)}`;
  const mid = `-${formatSpan(span / 2)}`;
  const row = new Array(w).fill(' ');
  const put = (at, text) => { for (let i = 0; i < text.length && at + i < w; i++) if (at + i >= 0) row[at + i] = text[i]; };
  put(0, left);
  if (w >= left.length + mid.length + 8) put(Math.floor(w / 2 - mid.length / 2), mid);
  put(w - 3, 'now');
  return row.join('');
}
