// `nodesup history` as text: each slot's rss over the kept full-resolution span, drawn as the
// status view draws its chart (report/status/chart.js), with its recycles and crashes marked.
// The CLI asks for this text and nothing else, so the bucketing and the marks stay the report's.
import { EVENTS } from '../../constants.js';
import { formatBytes } from '../../units.js';
import { lineChart, formatSpan, markOf } from '../status/chart.js';
import { bucketMax } from './series-ring.js';

/** Text of a history document (history-doc.js) at `width` columns, a chart of `height` rows a slot. */
export function historyText(doc, { width = 80, height = 12 } = {}) {
  const out = (doc.slots ?? []).flatMap((s) => slotChart(s, doc, width, height));
  if (!out.length) out.push('no history yet: the first poll has not answered');
  return `${out.join('\n')}\n`;
}

function slotChart(s, doc, width, height) {
  const fine = s.fine ?? { t: [] };
  const from = fine.t[0] ?? doc.now;
  const to = doc.now;
  const limit = doc.limits?.rss ?? null;
  // Two dots a column: the chart's braille cell is two dots wide.
  const points = fine.t.map((t, i) => ({ t, rss: fine.rss[i] }));
  const cols = bucketMax(points, ['rss'], from, to + 1, 2 * width);
  const events = s.events ?? [];
  const marks = events.filter((e) => e.t >= from).map((e) => ({ t: e.t, label: markOf(e) })).filter((m) => m.label);
  const recycles = events.filter((e) => e.event === EVENTS.WORKER_RECYCLE).length;
  const title = `slot ${s.slot}  rss MiB, last ${formatSpan(Math.max(1000, to - from))}  limit ${formatBytes(limit)}  ${recycles} recycles kept`;
  return [title, ...lineChart({ values: cols.rss, from, to, limit, marks, width, height }), ''];
}
