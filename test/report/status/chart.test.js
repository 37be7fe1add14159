// The pure chart: where the dots, the limit row, the marks and the labels land.
import test from 'ava';
import { lineChart, niceCeil, formatSpan, LIMIT_CHAR, MARK_CHAR } from '../../../src/report/status/chart.js';
import { visibleWidth } from '../../../src/report/status/ansi.js';

const MiB = 1024 * 1024;
const body = (line, gutter) => [...line].slice(gutter);

for (const [v, want] of [[0, 1], [0.7, 0.8], [1, 1], [1.2, 1.5], [2.1, 2.5], [3, 3], [7, 8], [180, 200], [201, 250], [260, 300], [537.6, 600], [900, 1000]]) {
  test(`niceCeil(${v}) is ${want}`, (t) => t.is(niceCeil(v), want));
}
for (const [ms, want] of [[30_000, '30s'], [300_000, '5m'], [150_000, '2m30s'], [1_800_000, '30m'], [21_600_000, '6h'], [5_400_000, '1h30m']]) {
  test(`formatSpan(${ms}) is ${want}`, (t) => t.is(formatSpan(ms), want));
}

test('size: exactly height lines, each exactly width columns, with color or not', (t) => {
  for (const [width, height] of [[40, 6], [76, 10], [150, 20]]) {
    for (const color of [false, true]) {
      const values = Array.from({ length: (width - 4) * 2 }, (_, i) => (i % 30) * MiB);
      const lines = lineChart({ values, from: 0, to: 60_000, limit: 25 * MiB, marks: [{ t: 30_000, label: 'rss' }], width, height, color });
      t.is(lines.length, height);
      for (const l of lines) t.is(visibleWidth(l), width, JSON.stringify(l));
    }
  }
});

test('a rising line fills braille from bottom left to top right; the y-axis is in MiB from 0', (t) => {
  const values = Array.from({ length: 20 }, (_, i) => i * 10 * MiB); // 0..190 MiB over 10 columns
  const lines = lineChart({ values, from: 0, to: 20_000, width: 14, height: 8 });
  t.is(lines[0].slice(0, 4), '200┤', 'top label: 190 MiB × 1.05 rounded up');
  t.is(lines[4].slice(0, 4), '  0┤', 'bottom label');
  t.is(lines[2].slice(0, 4), '100┤', 'middle label');
  t.not(body(lines[4], 4)[0], ' ', 'the first point is at the bottom left');
  t.is(body(lines[0], 4)[0], ' ', 'nothing at the top left');
  t.not(body(lines[0], 4)[9], ' ', 'the last point reaches the top row');
  t.regex(lines[5], /^ {3}└─{10}$/, 'the time axis');
  t.regex(lines[7], /^ {4}-20s.*now$/, 'from -20s to now');
});

test('the limit is a dashed row labelled with its MiB, where the curve is not', (t) => {
  const values = new Array(40).fill(20 * MiB);
  const lines = lineChart({ values, from: 0, to: 1, limit: 180 * MiB, width: 24, height: 11 });
  const row = lines.findIndex((l) => l.includes(LIMIT_CHAR));
  t.true(row >= 0, 'one row has the limit');
  t.is(lines.filter((l) => l.includes(LIMIT_CHAR)).length, 1, 'only one');
  t.regex(lines[row], /^180┤┄{20}$/);
  t.true(lines.slice(0, row).every((l) => !/[\u2801-\u28ff]/.test(l)), 'the flat curve at 20 MiB is below the limit');
});

test('a mark sits on the axis at its time with its label below, and the curve drops in that column', (t) => {
  // 60 s in 80 points over 40 columns: a sawtooth that drops at 30 s.
  const values = Array.from({ length: 80 }, (_, i) => (i < 40 ? 50 + i * 3 : 50 + (i - 40) * 3) * MiB);
  const lines = lineChart({ values, from: 0, to: 60_000, limit: 180 * MiB, marks: [{ t: 30_000, label: 'rss' }], width: 44, height: 12 });
  const axis = lines[lines.length - 3];
  const col = [...axis].indexOf(MARK_CHAR);
  t.is(col, 4 + 20, 'the middle column of the plot');
  t.is([...lines[lines.length - 2]].slice(col, col + 3).join(''), 'rss');
  // In the mark's column the curve runs from its peak down to its floor: a vertical line.
  const inColumn = lines.slice(0, -3).map((l) => [...l][col]).filter((ch) => /[\u2801-\u28ff]/.test(ch));
  t.true(inColumn.length >= 5, `a vertical run in the mark's column (${inColumn.join('')})`);
});

test('marks whose labels would touch keep the newest; marks outside the range are left out', (t) => {
  const lines = lineChart({ values: [], from: 0, to: 100, marks: [{ t: 50, label: 'rss' }, { t: 52, label: 'leak' }, { t: 150, label: 'late' }], width: 54, height: 6 });
  const labels = lines[lines.length - 2];
  t.true(labels.includes('leak'));
  t.false(labels.includes('rss'));
  t.is([...lines[lines.length - 3]].filter((c) => c === MARK_CHAR).length, 2);
});

test('unknown values leave gaps, not zeros', (t) => {
  const values = [null, null, 5 * MiB, 5 * MiB, null, null];
  const lines = lineChart({ values, from: 0, to: 6, width: 7, height: 5 });
  const plot = lines.slice(0, 2).map((l) => body(l, 4).join(''));
  t.is(plot.join('').replace(/ /g, '').length > 0, true);
  t.is(plot[1][0], ' ', 'no dot at 0 for the unknown first column');
});

test('a short gap (a poll that fell in the next bucket) is bridged; a long one is not', (t) => {
  const dots = (values) => lineChart({ values, from: 0, to: 1, width: 24, height: 7 }).slice(0, 4).join('').replace(/[^\u2801-\u28ff]/g, '').length;
  const flat = new Array(40).fill(5 * MiB);
  const short = flat.map((v, i) => (i % 4 === 1 ? null : v));
  const long = flat.map((v, i) => (i >= 10 && i < 30 ? null : v));
  t.is(dots(short), dots(flat), 'one missing bucket in four changes nothing');
  t.true(dots(long) < dots(flat), 'twenty missing buckets leave a hole');
});
