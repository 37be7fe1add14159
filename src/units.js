// Human units for sizes ('512mb', '1.5gb', '800MiB'), durations ('500ms', '10s', '6h') and rates
// ('2mb/min'). Sizes are binary, as PM2 and V8 flags read them: 1mb = 1MiB = 1048576 bytes.
// Each parser returns a number, or null when the text is not of that form; callers report errors.

const SIZE_UNITS = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };
const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 };

const SIZE_RE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?\s*$/i;
const DURATION_RE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?|d|days?)?\s*$/i;

/** Bytes from a size; a bare number is bytes. */
export function parseSize(input) {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? Math.round(input) : null;
  if (typeof input !== 'string') return null;
  const m = SIZE_RE.exec(input);
  if (!m) return null;
  const unit = (m[2] ?? 'b').toLowerCase()[0];
  const n = Math.round(Number(m[1]) * SIZE_UNITS[unit]);
  return Number.isFinite(n) ? n : null;
}

/** Milliseconds from a duration; a bare number is milliseconds. */
export function parseDuration(input) {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? input : null;
  if (typeof input !== 'string') return null;
  const m = DURATION_RE.exec(input);
  if (!m) return null;
  let unit = (m[2] ?? 'ms').toLowerCase();
  if (unit.startsWith('sec') || unit === 's' || unit.startsWith('second')) unit = 's';
  else if (unit.startsWith('min') || unit === 'm') unit = 'm';
  else if (unit.startsWith('h')) unit = 'h';
  else if (unit.startsWith('d')) unit = 'd';
  const n = Number(m[1]) * DURATION_UNITS[unit];
  return Number.isFinite(n) ? n : null;
}

/** Bytes per second from a rate like '2mb/min' or '10kb/s'; a bare number is bytes per second. */
export function parseRate(input) {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? input : null;
  if (typeof input !== 'string') return null;
  const slash = input.indexOf('/');
  if (slash < 0) return null;
  const bytes = parseSize(input.slice(0, slash));
  const per = input.slice(slash + 1).trim();
  const ms = parseDuration(/^\d/.test(per) ? per : `1${per}`);
  if (bytes === null || !ms) return null;
  const r = (bytes * 1000) / ms;
  return Number.isFinite(r) ? r : null;
}

/** A percentage like '90%' as a fraction (0.9), or null. */
export function parsePercent(input) {
  if (typeof input !== 'string') return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(input);
  if (!m) return null;
  const f = Number(m[1]) / 100;
  return f > 0 && f <= 1 ? f : null;
}

/** '512.0 MiB'-style text for people; null shows as '-'. */
export function formatBytes(bytes) {
  if (bytes === null || bytes === undefined || Number.isNaN(bytes)) return '-';
  const abs = Math.abs(bytes);
  if (abs < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = abs / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${bytes < 0 ? '-' : ''}${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** '1h02m', '45s', '850ms' for people. */
export function formatDuration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}
