// The leak detector on real histories: series recorded from the bench corpus running under
// nodesup (test/fixtures/series/record.js), replayed one poll at a time as the supervisor sees
// them, with the bench's settings. Real leaks are caught with the right kind; real sawtooth,
// steady, burst and step workers never are, at any poll.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { SampleWindow } from '../../src/core/sample-window.js';
import { detectLeak, detectStep, LEAK_THRESHOLDS } from '../../src/core/leak-detector.js';
import { advise } from '../../src/core/advice.js';
import { parseDuration, parseRate, parseSize } from '../../src/units.js';

const MiB = 1024 * 1024;
const NULLS = Object.fromEntries(['pid', 'pss', 'anon', 'treePss', 'children', 'fds', 'heapLimit', 'arrayBuffers',
  'newSpace', 'gcCount', 'gcMs', 'majorGcCount', 'elu', 'delayP50', 'delayP99', 'requests', 'handles'].map((k) => [k, null]));
const load = (name) => JSON.parse(readFileSync(new URL(`../fixtures/series/real-${name}.json`, import.meta.url), 'utf8'))
  .map((s) => ({ ...NULLS, agent: true, ...s }));

const leakOf = (window, minGrowth = '1mb/min') => ({ window: parseDuration(window), minGrowth: parseRate(minGrowth), action: 'recycle' });
const BENCH = leakOf('60s'); // bench/detection.js's defaults
const LIMITS = { rss: parseSize('2gb'), heapUsed: null, native: null, totalRss: null, maxAge: null, maxRequests: null, jitter: 0, sustain: 0 };

// Push samples one poll at a time, as the poller does; the first sample stands for readiness.
function verdicts(series, leak) {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  const startedAt = series[0].t;
  return series.map((s) => {
    w.push(s);
    return { el: s.t - startedAt, v: detectLeak(w, { leak, limits: LIMITS, now: s.t, pollInterval: 1000, startedAt }) };
  });
}

test('the recordings are real and usable: ~1 s polls, minutes long, small files', (t) => {
  for (const name of ['steady', 'sawtooth', 'burst', 'step', 'heap-leak-fast', 'heap-leak-slow', 'buffer-leak', 'native-leak', 'child-leak', 'fd-leak']) {
    const text = readFileSync(new URL(`../fixtures/series/real-${name}.json`, import.meta.url), 'utf8');
    t.true(text.length < 100 * 1024, name);
    const s = JSON.parse(text);
    t.true(s.at(-1).t - s[0].t >= 180_000, `${name}: covers the warm-up and a full 60 s window with room to spare`);
    t.true(s.every((x, i) => i === 0 || x.t > s[i - 1].t), `${name}: time-ordered`);
    t.true(s.filter((x) => x.heapUsed !== null).length > 0.95 * s.length, `${name}: the agent answered`);
  }
});

// Healthy apps under the bench's settings (60 s, 1 MiB/min), the design's rate (2 MiB/min), and a
// shorter window. `known` marks what the detector gets wrong today on these exact recordings: they
// run as test.failing, so they stay green while the bug is there and turn red the day it is fixed
// (then drop the mark). Each is explained in the comment beside it.
const KNOWN = {
  // Aliasing: the 4 s sawtooth is sampled at 1 s polls that drift against it, so the lowest sample of
  // each 5 s bucket climbs 1.5 MiB every ~20 s (one chunk) before wrapping; bucket minima are not the
  // post-GC baseline when a poll rarely lands right after a GC. Fires at 182 s as heap, ~3.5 MiB/min.
  'sawtooth 60s 1mb/min': true,
  'sawtooth 60s 2mb/min': true,
};
for (const name of ['steady', 'sawtooth', 'burst', 'step']) {
  for (const [window, minGrowth] of [['60s', '1mb/min'], ['60s', '2mb/min'], ['30s', '2mb/min']]) {
    const title = `${name} ${window} ${minGrowth}`;
    (KNOWN[title] ? test.failing : test)(`real ${name}: no leak at any poll (${window} window, ${minGrowth})`, (t) => {
      const fired = verdicts(load(name), leakOf(window, minGrowth)).filter(({ v }) => v);
      t.deepEqual(fired.map(({ el, v }) => `${Math.round(el / 1000)} s: ${v.kind}`), []);
    });
  }
}

// Caught by the bench's deadline: one window after the warm-up window, plus 60 s.
const DEADLINE_MS = (LEAK_THRESHOLDS.warmup + 1) * BENCH.window + 60_000;
for (const [name, kind, field] of [
  ['heap-leak-fast', 'heap', 'heapUsed'],
  ['heap-leak-slow', 'heap', 'heapUsed'],
  ['buffer-leak', 'external', 'external'],
  ['native-leak', 'native', 'native'],
  ['child-leak', 'children', 'childrenRss'],
]) {
  test(`real ${name}: caught as ${kind}`, (t) => {
    const all = verdicts(load(name), BENCH);
    const first = all.find(({ v }) => v);
    t.truthy(first, 'caught');
    t.true(first.el >= (LEAK_THRESHOLDS.warmup + LEAK_THRESHOLDS.coverage) * BENCH.window, 'not during warm-up');
    t.true(first.el <= DEADLINE_MS, `caught at ${first.el} ms, by ${DEADLINE_MS} ms`);
    t.like(first.v, { kind, field });
    t.true(first.v.growthBytesPerSec >= BENCH.minGrowth);
    const kinds = new Set(all.filter(({ v }) => v).map(({ v }) => v.kind));
    t.deepEqual([...kinds], [kind], 'never named as another kind');
    t.truthy(all.at(-1).v, 'still a leak at the end: a leak does not flicker off');
  });
}

test('real heap leaks: the measured growth is near the rate the app leaks at', (t) => {
  // heap-leak-fast leaks 30 MiB/min, heap-leak-slow 3 MiB/min (their defaults); objects cost more
  // than their payload, so the heap grows somewhat faster than the nominal rate, never slower by much.
  for (const [name, mbPerMin] of [['heap-leak-fast', 30], ['heap-leak-slow', 3]]) {
    const { v } = verdicts(load(name), BENCH).at(-1);
    const measured = (v.growthBytesPerSec * 60) / MiB;
    t.true(measured > 0.7 * mbPerMin && measured < 2 * mbPerMin, `${name}: ${measured.toFixed(1)} MiB/min`);
  }
});

test('real step: detectStep reports the ~100 MiB jump and when it happened', (t) => {
  const series = load('step');
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  const now = series[0].t + 60_000;
  for (const s of series) if (s.t <= now) w.push(s);
  const step = detectStep(w, { now, windowMs: 60_000 });
  t.truthy(step);
  t.true(step.stepBytes > 80 * MiB && step.stepBytes < 130 * MiB, String(step.stepBytes / MiB));
  t.true(['heapUsed', 'treeRss'].includes(step.field), step.field);
  const atS = (step.at - series[0].t) / 1000;
  t.true(atS > 10 && atS < 35, `the cache loads ~20 s after start; seen at ${atS} s`);
});

test('real fd leak: not a memory leak, but the fd advice fires once fds pile up', (t) => {
  const series = load('fd-leak');
  t.true(series.at(-1).fds > series[0].fds + 1000, `${series[0].fds} → ${series.at(-1).fds}`);
  const codes = advise(series.at(-1)).map((a) => a.code);
  t.true(codes.includes('fd-growth'));
  t.true(codes.includes('handles'));
});
