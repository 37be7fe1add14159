// The inspect overlay as a pure function: a free-form report object → aligned key/value lines,
// then its advice. The report's shape belongs to the primary and may grow; numbers are shown in
// the unit their key suggests (bytes, durations, shares) so a new field reads well without a change.

import { formatBytes, formatDuration } from '../units.js';
import { paint, truncate, clean, wrap } from './ansi.js';
import { percent } from './status-columns.js';

const MAX_DEPTH = 3;
const DURATION_KEY = /(?:^ms|Ms|_ms|[dD]uration|[uU]ptime|^age|Age|[tT]imeout)$/;
const SHARE_KEY = /(ratio|fraction|share|elu|utilization)$/i;
const COUNT_KEY = /(?:[cC]ount|[nN]umber|pid|slot|fds|handles|requests|children|code)$/;
const BYTES_KEY = /(bytes|rss|pss|anon|heap|external|arraybuffers|native|memory|size|space|used|limit|capacity|available)/i;

/** Lines of the inspect overlay for one worker's report. */
export function renderInspect(report, { width = 80, color = false } = {}) {
  width = Math.max(1, Math.floor(width || 80));
  if (!report || typeof report !== 'object') return [truncate(`inspect: ${clean(report) || 'no report'}`, width)];
  const { advice, slot, pid, ...rest } = report;
  const title = `inspect${slot != null ? ` slot ${slot}` : ''}${pid != null ? ` pid ${pid}` : ''}`;
  const lines = [paint(title, 'bold', color), ...fields(rest, 0, color)];
  const items = Array.isArray(advice) ? advice : advice ? [advice] : [];
  if (items.length) {
    lines.push('', paint('advice', 'bold', color));
    for (const item of items) lines.push(...adviceLines(item, width, color));
  }
  return lines.map((l) => truncate(l, width));
}

function fields(obj, depth, color) {
  const indent = '  '.repeat(depth + 1);
  const keyWidth = Math.min(24, Math.max(0, ...Object.keys(obj).map((k) => clean(k).length)));
  const out = [];
  for (const [k, v] of Object.entries(obj)) {
    const key = clean(k).padEnd(keyWidth);
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && depth < MAX_DEPTH) {
      out.push(`${indent}${paint(clean(k), 'dim', color)}`, ...fields(v, depth + 1, color));
    } else if (Array.isArray(v) && v.some((x) => x !== null && typeof x === 'object')) {
      out.push(`${indent}${paint(clean(k), 'dim', color)}`);
      for (const x of v) out.push(`${indent}  - ${oneLine(x, k)}`);
    } else {
      out.push(`${indent}${key}  ${Array.isArray(v) ? v.map((x) => show(k, x)).join(', ') : show(k, v)}`);
    }
  }
  return out;
}

function oneLine(x, parentKey) {
  if (x === null || typeof x !== 'object') return show(parentKey, x);
  return Object.entries(x).map(([k, v]) => `${clean(k)} ${typeof v === 'object' && v !== null ? clean(JSON.stringify(v)) : show(k, v)}`).join('  ');
}

/** A value as people read it, in the unit its key suggests. */
export function show(key, v) {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') return clean(JSON.stringify(v));
  if (typeof v !== 'number') return clean(v);
  if (!Number.isFinite(v)) return String(v);
  if (SHARE_KEY.test(key) && v >= 0 && v <= 1) return percent(v);
  if (DURATION_KEY.test(key)) return formatDuration(v);
  if (COUNT_KEY.test(key) || !BYTES_KEY.test(key)) return Number.isInteger(v) ? String(v) : v.toFixed(2);
  return formatBytes(v);
}

function adviceLines(item, width, color) {
  const text = typeof item === 'string' ? item : item?.message ?? item?.text ?? JSON.stringify(item);
  const level = typeof item === 'object' && item ? item.level ?? item.severity : null;
  const tone = level === 'error' || level === 'critical' ? 'red' : level === 'warn' || level === 'warning' ? 'yellow' : null;
  const body = wrap(text, Math.max(10, width - 4));
  return body.map((l, i) => (i === 0 ? `  ${paint('•', tone, color)} ${paint(l, tone, color)}` : `    ${paint(l, tone, color)}`));
}
