// The detail pane draws the slot history it is given: chart, limit, recycle marks, parts, the leak.
import test from 'ava';
import { detailPane, markOf, RANGES, CHART_SERIES } from '../../../src/report/status/status-detail.js';
import { renderStatus, visibleWidth } from '../../../src/report/status/status-view.js';
import { LIMIT_CHAR, MARK_CHAR } from '../../../src/report/status/chart.js';
import { MiB, NOW, snapshot, slotView } from '../fake-snapshot.js';
import { messageFor } from '../../../src/report/words.js';

// Five minutes of one slot in 150 buckets: three workers filling from 60 to ~180 MiB, recycled for rss.
function historyRange({ points = 150, rangeMs = RANGES[0] } = {}) {
  const from = NOW - rangeMs;
  const step = rangeMs / points;
  const t = Array.from({ length: points }, (_, i) => from + i * step);
  const rss = t.map((_, i) => (60 + (i % 50) * 2.5) * MiB);
  const events = [50, 100].map((i) => ({ t: from + i * step, event: 'worker.recycle', pid: 1, reason: 'rss', value: 182 * MiB, limit: 180 * MiB }));
  events.push({ t: from + 120 * step, event: 'worker.exit', pid: 3, planned: false, signal: 'SIGKILL', oomKill: true });
  events.push({ t: from + 10 * step, event: 'worker.spawn', pid: 2, cause: 'replace' });
  return { slot: 1, from, to: NOW, stepMs: step, t, rss, heapUsed: rss.map((v) => v / 2), external: rss.map(() => MiB), native: rss.map((v) => v / 4), children: rss.map(() => 0), gcShare: rss.map(() => 0.02), delayP99: rss.map((_, i) => (i === 70 ? 40 : 3)), events };
}
const snap = () => snapshot({ limits: { rss: 180 * MiB, heapUsed: 300 * MiB, native: null } });
const plainLines = (lines) => lines.map((l) => l.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''));

test('markOf: a recycle by its reason, a crash and an OOM kill; spawns are not marks', (t) => {
  t.is(markOf({ event: 'worker.recycle', reason: 'leak' }), 'leak');
  t.is(markOf({ event: 'worker.exit', planned: false }), 'crash');
  t.is(markOf({ event: 'worker.exit', planned: false, oomKill: true }), 'oom-kill');
  t.is(markOf({ event: 'worker.exit', planned: true, reason: 'rss' }), null, 'the recycle already marks it');
  t.is(markOf({ event: 'worker.spawn' }), null);
});

test('the chart of the range: y-axis in MiB, the rss limit as a row, a ▲ and a label for each recycle', (t) => {
  const lines = plainLines(detailPane(slotView(1), { snapshot: snap(), view: { data: historyRange() }, width: 80, height: 16 }));
  t.is(lines.length, 16);
  t.regex(lines[0], /^slot 1  rss MiB, last 5m  ┄ limit 180 MiB  ▲ 3 recycles$/);
  const limitRow = lines.slice(1).find((l) => l.includes(LIMIT_CHAR));
  t.regex(limitRow, /^180┤/, 'the limit row is labelled with its MiB');
  t.regex(lines[1], /^200┤/, 'top of the axis');
  const axis = lines.find((l) => l.includes('└'));
  const marks = [...axis].flatMap((ch, i) => (ch === MARK_CHAR ? [i] : []));
  // 76 plot columns after a 4-column gutter; recycles at buckets 50 and 100 of 150, the OOM kill at 120.
  t.deepEqual(marks, [4 + Math.floor(76 / 3), 4 + Math.floor((2 * 76) / 3), 4 + Math.floor((120 * 76) / 150)]);
  const labels = lines[lines.indexOf(axis) + 1];
  t.is(labels.slice(marks[0], marks[0] + 3), 'rss');
  t.is(labels.slice(marks[1], marks[1] + 3), 'rss');
  t.true(labels.includes('oom-kill'));
  t.regex(lines[lines.indexOf(axis) + 2], /^ {4}-5m .* -2m30s .* now$/);
  t.regex(lines.at(-1), /^gc 2\.0% \(peak 2\.0%\)  delay p99 3\.0ms \(peak 40ms\)/, 'GC share and delay over the range');
});

test('series and range: heap used against the heap limit; 6 h titled so; a series without limit has no limit row', (t) => {
  const heap = plainLines(detailPane(slotView(1), { snapshot: snap(), view: { series: 1, range: 2, data: historyRange({ rangeMs: RANGES[2] }) }, width: 80, height: 14 }));
  t.regex(heap[0], /^slot 1  heap used MiB, last 6h  ┄ limit 300 MiB/);
  t.regex(heap.slice(1).find((l) => l.includes(LIMIT_CHAR)), /^300┤/);
  t.regex(heap.find((l) => l.includes('now')), /-6h .* -3h .* now$/);
  const ext = plainLines(detailPane(slotView(1), { snapshot: snap(), view: { series: CHART_SERIES.findIndex((s) => s.key === 'external'), data: historyRange() }, width: 80, height: 14 }));
  t.false(ext.some((l) => l.includes(LIMIT_CHAR)));
});

test('a named leak: kind, rate, time to the limit and the top sites, under the chart', (t) => {
  const leak = { kind: 'heap', growthBytesPerSec: 35_000, projectedLimitInSec: 200, sites: [
    { fn: 'remember', file: 'server.js', line: 12, column: 3, bytesPerMin: 1.5 * MiB, share: 0.72 },
    { fn: 'cache', file: 'lib/c.js', line: 4, column: 1, bytesPerMin: 0.4 * MiB, share: 0.2 },
  ] };
  const lines = plainLines(detailPane(slotView(1, { leak }), { snapshot: snap(), view: { data: historyRange() }, width: 80, height: 20 }));
  const at = lines.findIndex((l) => l.startsWith('leak heap'));
  t.regex(lines[at], /^leak heap \+2\.0M\/m  limit in 3m20s  allocated by$/);
  t.is(lines[at + 1], '   72% remember (server.js:12) 1.5M/m');
  t.is(lines[at + 2], '   20% cache (lib/c.js:4) 410K/m');
  t.true(lines.slice(1, at).some((l) => l.includes(LIMIT_CHAR)), 'the chart stays above');
  const retainers = { pid: 9, at: 0, held: [{ bytes: MiB, share: 0.93, count: 12004, type: 'IncomingMessage', path: ['(module) server.js', 'recentRequests', 'Array'], holder: { name: 'recentRequests', file: 'server.js', line: 11 } }] };
  const held = plainLines(detailPane(slotView(1, { leak, retainers }), { snapshot: snap(), view: { data: historyRange() }, width: 100, height: 20 }));
  t.is(held[held.findIndex((l) => l.startsWith('leak heap')) + 3], '93 % held by recentRequests (Array of 12,004 IncomingMessage) declared at server.js:11');
});

test('GC between polls: the gcSharePoll series when the document has it, else its older name gcShare', (t) => {
  const gcLine = (data) => plainLines(detailPane(slotView(1), { snapshot: snap(), view: { data }, width: 100, height: 16 })).at(-1);
  const { gcShare, ...renamed } = historyRange();
  t.regex(gcLine({ ...renamed, gcSharePoll: gcShare.map((_, i) => (i === 3 ? 0.3 : 0.05)) }), /^gc 5\.0% \(peak 30%\)/);
  t.regex(gcLine(historyRange()), /^gc 2\.0% \(peak 2\.0%\)/);
});

test('a library site reads in the pane as in the log: package, function, the app frame that reached it', (t) => {
  const site = { fn: 'MemoryStore.set', file: 'node_modules/some-store/index.js', line: 40, package: 'some-store@2.3.1', via: { file: 'server.js', line: 12 }, bytesPerMin: MiB, share: 0.9 };
  const leak = { kind: 'heap', growthBytesPerSec: 20_000, sites: [site] };
  const lines = plainLines(detailPane(slotView(1, { leak }), { snapshot: snap(), view: { data: historyRange() }, width: 100, height: 20 }));
  const words = 'some-store@2.3.1 MemoryStore.set, reached from server.js:12';
  t.true(lines.includes(`   90% ${words} 1.0M/m`), lines.join('\n'));
  t.true(messageFor({ event: 'leak.warning', slot: 1, ...leak }).includes(`mostly from ${words}`), 'the log line names it the same way');
});

for (const [width, height] of [[80, 24], [160, 48]]) {
  test(`the status view at ${width}×${height} with a history: the chart fills the pane, everything fits`, (t) => {
    const s = snapshot({ slots: 2, limits: { rss: 180 * MiB } });
    const lines = renderStatus(s, { width, height, selected: 1, view: { data: historyRange({ points: 2 * width }) } });
    t.is(lines.length, height);
    t.true(lines.every((l) => visibleWidth(l) <= width));
    const chartRows = lines.filter((l) => /^ *(\d+)?[┤│]/.test(l)).length;
    t.true(chartRows >= (height === 24 ? 9 : 30), `${chartRows} chart rows`);
    t.true(lines.some((l) => l.includes(MARK_CHAR)));
  });
}
