// `nodesup history` for people: each slot's rss over the kept full-resolution span, as the status
// view draws it (report/status/chart.js), with its recycles marked. Scripts use --json.
import { lineChart, formatSpan } from '../report/status/chart.js';
import { bucketMax } from '../report/history/series-ring.js';
import { markOf } from '../report/status/status-detail.js';
import { formatBytes } from '../units.js';

/** Text of a history document (report/history/history-doc.js) at `width` columns. */
export function formatHistory(doc, { width = 80, height = 12 } = {}) {
  const out = [];
  for (const s of doc.slots ?? []) {
    const fine = s.fine ?? { t: [] };
    const from = fine.t[0] ?? doc.now;
    const to = doc.now;
    const n = 2 * width;
    const points = fine.t.map((t, i) => ({ t, rss: fine.rss[i] }));
    const cols = bucketMax(points, ['rss'], from, to + 1, n);
    const marks = (s.events ?? []).filter((e) => e.t >= from).map((e) => ({ t: e.t, label: markOf(e) })).filter((m) => m.label);
    const recycles = (s.events ?? []).filter((e) => e.event === 'worker.recycle').length;
    out.push(`slot ${s.slot}  rss MiB, last ${formatSpan(Math.max(1000, to - from))}  limit ${formatBytes(doc.limits?.rss ?? null)}  ${recycles} recycles kept`);
    out.push(...lineChart({ values: cols.rss, from, to, limit: doc.limits?.rss ?? null, marks, width, height }), '');
  }
  if (!out.length) out.push('no history yet: the first poll has not answered');
  return `${out.join('\n')}\n`;
}
