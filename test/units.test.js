import test from 'ava';
import { parseSize, parseDuration, parseRate, parsePercent, formatBytes, formatDuration } from '../src/units.js';

// Test titles must be unique: NaN and null both stringify to 'null' in JSON.
const show = (v) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

const KiB = 1024;
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

const sizes = [
  ['512mb', 512 * MiB],
  ['1.5gb', 1.5 * GiB],
  ['800MiB', 800 * MiB],
  ['1024', 1024],
  ['10k', 10 * KiB],
  ['10KB', 10 * KiB],
  ['2t', 2 * 1024 ** 4],
  [' 64 mb ', 64 * MiB],
  ['.5g', 0.5 * GiB],
  ['0', 0],
  [4096, 4096],
  [1.6, 2], // bytes are whole
  [0, 0],
  ['lots', null],
  ['512mbb', null],
  ['-1mb', null],
  ['1e3', null],
  ['', null],
  ['mb', null],
  [-1, null],
  [Number.NaN, null],
  [Number.POSITIVE_INFINITY, null],
  [null, null],
  [undefined, null],
  [{}, null],
];
for (const [input, want] of sizes) {
  test(`parseSize(${show(input)}) = ${want}`, (t) => t.is(parseSize(input), want));
}

const durations = [
  ['500ms', 500],
  ['10s', 10_000],
  ['1.5s', 1500],
  ['2m', 120_000],
  ['1min', 60_000],
  ['6h', 6 * 3_600_000],
  ['1d', 86_400_000],
  ['10 seconds', 10_000],
  ['3 minutes', 180_000],
  ['250', 250],
  [0, 0],
  [1500, 1500],
  ['soon', null],
  ['10x', null],
  ['-5s', null],
  ['', null],
  [-5, null],
  [Number.NaN, null],
  [null, null],
];
for (const [input, want] of durations) {
  test(`parseDuration(${show(input)}) = ${want}`, (t) => t.is(parseDuration(input), want));
}

const rates = [
  ['2mb/min', (2 * MiB) / 60],
  ['10kb/s', 10 * KiB],
  ['1mb/5min', MiB / 300],
  ['100b/100ms', 1000],
  [1000, 1000],
  ['2mb', null],
  ['2mb/0s', null],
  ['x/min', null],
  ['2mb/fortnight', null],
  [-1, null],
  [null, null],
];
for (const [input, want] of rates) {
  test(`parseRate(${show(input)}) = ${want}`, (t) => t.is(parseRate(input), want));
}

const percents = [
  ['90%', 0.9],
  ['100%', 1],
  [' 50 % ', 0.5],
  ['0.5%', 0.005],
  ['0%', null],
  ['150%', null],
  ['90', null],
  [0.9, null],
  [null, null],
];
for (const [input, want] of percents) {
  test(`parsePercent(${show(input)}) = ${want}`, (t) => t.is(parsePercent(input), want));
}

const bytesText = [
  [0, '0 B'],
  [1023, '1023 B'],
  [1024, '1.0 KiB'],
  [1536, '1.5 KiB'],
  [512 * MiB, '512 MiB'],
  [1.5 * GiB, '1.5 GiB'],
  [-2048, '-2.0 KiB'],
  [null, '-'],
  [undefined, '-'],
  [Number.NaN, '-'],
];
for (const [input, want] of bytesText) {
  test(`formatBytes(${input}) = ${want}`, (t) => t.is(formatBytes(input), want));
}

const durationText = [
  [850, '850ms'],
  [0, '0ms'],
  [45_000, '45s'],
  [61_000, '1m01s'],
  [62 * 60_000, '1h02m'],
  [3 * 86_400_000, '3d00h'],
  [null, '-'],
  [Number.NaN, '-'],
];
for (const [input, want] of durationText) {
  test(`formatDuration(${input}) = ${want}`, (t) => t.is(formatDuration(input), want));
}

test('a parsed size formats back to the same amount', (t) => {
  for (const s of ['512mb', '1.5gb', '800MiB']) t.is(parseSize(formatBytes(parseSize(s)).replace(' ', '')), parseSize(s));
});
