// Small statistics for bench tables. Every function takes plain arrays of numbers.

export const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** Sample standard deviation (n − 1). */
export function sd(xs) {
  if (xs.length < 2) return null;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

// Two-sided 95 % t quantiles by degrees of freedom (1–30); past 30, 1.96 is close enough.
const T95 = [NaN, 12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13, 2.12, 2.11, 2.10, 2.09, 2.09,
  2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05, 2.04];

/** [mean, low, high]: the mean of xs and its 95 % confidence interval (t, n − 1 degrees of freedom). */
export function ci95(xs) {
  const m = mean(xs);
  if (xs.length < 2) return [m, m, m];
  const h = ((T95[xs.length - 1] ?? 1.96) * sd(xs)) / Math.sqrt(xs.length);
  return [m, m - h, m + h];
}

/** Nearest-rank percentile, q in 0..1. */
export function percentile(xs, q) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export const min = (xs) => (xs.length ? Math.min(...xs) : null);
export const max = (xs) => (xs.length ? Math.max(...xs) : null);

/** Least-squares slope of y over x. */
export function slope(points) {
  if (points.length < 2) return null;
  const mx = mean(points.map((p) => p.x));
  const my = mean(points.map((p) => p.y));
  let num = 0;
  let den = 0;
  for (const p of points) { num += (p.x - mx) * (p.y - my); den += (p.x - mx) ** 2; }
  return den ? num / den : null;
}

const MIB = 1024 * 1024;
/** '123.4' MiB text, '-' for null. */
export const mib = (bytes, digits = 1) => (bytes === null || bytes === undefined ? '-' : (bytes / MIB).toFixed(digits));
/** Fixed digits, '-' for null. */
export const fx = (n, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '-' : Number(n).toFixed(digits));
/** 12 345 style integer. */
export const int = (n) => (n === null || n === undefined ? '-' : Math.round(n).toLocaleString('en-US'));
