// The worker's GCs, counted as they happen (a PerformanceObserver on 'gc' entries): totals since
// the worker started, overall and by kind, which the poll reports and the primary turns into rates.
import { PerformanceObserver, constants as perf } from 'node:perf_hooks';

const GC_KIND = {
  [perf.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perf.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perf.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perf.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/**
 * Start counting; returns the live totals. `after(major)` runs after each batch of GC entries,
 * major: whether a full collection was among them.
 * @param {(major: boolean) => void} after
 */
export function gcTotals(after) {
  const totals = { count: 0, ms: 0, major: 0, byKind: { minor: { count: 0, ms: 0 }, major: { count: 0, ms: 0 }, incremental: { count: 0, ms: 0 }, weakcb: { count: 0, ms: 0 } } };
  new PerformanceObserver((list) => {
    let major = false;
    for (const e of list.getEntries()) major = add(totals, e) === 'major' || major;
    after(major);
  }).observe({ entryTypes: ['gc'] });
  return totals;
}

function add(totals, entry) {
  totals.count++;
  totals.ms += entry.duration;
  const kind = GC_KIND[entry.detail?.kind] ?? 'minor';
  if (kind === 'major') totals.major++;
  totals.byKind[kind].count++;
  totals.byKind[kind].ms += entry.duration;
  return kind;
}
