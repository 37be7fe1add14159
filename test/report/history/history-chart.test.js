// `nodesup history` as text: one chart a slot from the history document, marks for its recycles.
import test from 'ava';
import { historyText } from '../../../src/report/history/history-chart.js';
import { formatHistory } from '../../../src/cli/history-text.js';
import { LIMIT_CHAR, MARK_CHAR } from '../../../src/report/status/chart.js';

const MiB = 1024 * 1024;
const NOW = 1_700_000_000_000;
const fine = (n, stepMs, f) => {
  const t = Array.from({ length: n }, (_, i) => NOW - (n - 1 - i) * stepMs);
  return { stepMs, t, rss: t.map((_, i) => f(i)) };
};
const doc = () => ({
  now: NOW, limits: { rss: 180 * MiB },
  slots: [
    { slot: 0, fine: fine(300, 1000, (i) => (60 + (i % 100)) * MiB), events: [
      { t: NOW - 200_000, event: 'worker.recycle', reason: 'rss' },
      { t: NOW - 50_000, event: 'worker.exit', planned: false, oomKill: true },
      { t: NOW - 20_000, event: 'worker.spawn' },
      { t: NOW - 10_000_000, event: 'worker.recycle', reason: 'leak' }, // kept, but before the fine span
    ] },
    { slot: 1, fine: fine(3, 1000, () => 40 * MiB), events: [] },
  ],
});

test('a chart a slot: title with span, limit and recycles kept; the limit row; marks within the span only', (t) => {
  const lines = historyText(doc(), { width: 80, height: 12 }).split('\n');
  t.is(lines[0], 'slot 0  rss MiB, last 4m59s  limit 180 MiB  2 recycles kept');
  const first = lines.slice(1, lines.indexOf(''));
  t.is(first.length, 12, 'height rows of chart');
  t.regex(first.find((l) => l.includes(LIMIT_CHAR)), /^180┤/);
  const axis = first.find((l) => l.includes('└'));
  t.is([...axis].filter((c) => c === MARK_CHAR).length, 2, 'the rss recycle and the OOM kill; the spawn and the old leak recycle are not marks');
  const labels = first[first.indexOf(axis) + 1];
  t.regex(labels, /rss .*oom-kill/);
  t.false(labels.includes('leak'));
  t.true(lines.includes('slot 1  rss MiB, last 2s  limit 180 MiB  0 recycles kept'));
  t.true(lines.every((l) => [...l].length <= 80));
});

test('no slots: one line says so; no limit reads as a dash', (t) => {
  t.is(historyText({ now: NOW, slots: [] }), 'no history yet: the first poll has not answered\n');
  t.regex(historyText({ now: NOW, slots: [{ slot: 3, fine: fine(10, 1000, () => MiB) }] }), /^slot 3 {2}rss MiB, last 9s {2}limit - {2}0 recycles kept\n/);
});

test('the CLI prints the report layer\'s text unchanged', (t) => {
  t.is(formatHistory(doc(), { width: 60 }), historyText(doc(), { width: 60, height: 12 }));
});
