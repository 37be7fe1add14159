// When a leak suspicion may start, on real histories (test/fixtures/series/real-*.json, recorded by
// record.js): each poll is asked with a fresh state whether it would start one, and of what. A
// suspicion costs the worker forced full GCs and a sampler; a leak's must start as early as ever,
// a healthy app's external memory wandering under load must not start one.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { clearOfNoise, confirmStep, newConfirmState } from '../../../src/core/leak/heap-confirm.js';

const MIN_GROWTH = (1024 * 1024) / 60; // the default: 1 MiB/min
const load = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/series/real-${name}.json`, import.meta.url), 'utf8'));

/** Seconds from the first sample (readiness) of every poll that would start a suspicion, of `kind` ('heap', 'external', either: null). */
function starts(series, kind = null) {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  const readyAt = series[0].t;
  const out = [];
  for (const s of series) {
    w.push({ agent: true, ...s });
    const { action, state } = confirmStep({ window: w, readyAt, startedAt: readyAt, points: [] }, newConfirmState(), s.t, { minGrowth: MIN_GROWTH, pollInterval: 1000 });
    if (action === 'probe' && (kind === null || state[kind])) out.push(Math.round((s.t - readyAt) / 1000));
  }
  return out;
}

test('clearOfNoise: the slope two standard errors above zero over the bucket minima', (t) => {
  const table = [
    // [r2, buckets, clear]
    [0.49, 6, false], [0.5, 6, true], [0.95, 6, true], [0, 6, false],
    [0.79, 3, false], [0.8, 3, true], [1, 3, true],
    [0.66, 4, false], [0.67, 4, true],
  ];
  for (const [r2, n, clear] of table) t.is(clearOfNoise({ r2, n }), clear, `r² ${r2}, ${n} buckets`);
});

// Leaks recorded under the bench's load: a suspicion of their kind could start 18-19 s after
// readiness before the noise gate, and still can (the warm-up hold, not the gate, holds them back).
for (const [name, kind] of [['heap-leak-slow', 'heap'], ['heap-leak-fast', 'heap'], ['buffer-leak', 'external']]) {
  test(`real ${name}: a suspicion of its ${kind} can start within 25 s of readiness`, (t) => {
    const first = starts(load(name), kind)[0];
    t.true(first !== undefined && first <= 25, `first at ${first} s`);
  });
}

// bench/apps/express-json.js under 10 keep-alive connections, 2 workers, leak detection on at its
// defaults (record.js --app ... --leak). Its external memory wanders with its socket buffers; fitted
// over 30 s it crossed the suspicion rate at 30 polls from 66 s on, with r² of 0.10-0.71, 23 of
// them under 0.5. Those with the slope two standard errors clear of the scatter are left.
test('real express app under load: an external suspicion starts only from a fit clear of its scatter', (t) => {
  const series = load('express-load');
  t.true(series.at(-1).t - series[0].t >= 160_000, 'the recording covers 160 s');
  t.deepEqual(starts(series, 'external'), [89, 93, 97, 98, 99, 101, 134]);
});

// bench/apps/express-json.js under bursts of load, as the overhead bench gives it (record.js --app
// ... --leak --workers 2 --connections 32 --burst 3/7 --seconds 300, Node 24): busy, its floors
// after scavenges climbing with old garbage between major GCs every few seconds, and the floors
// after those flat at 10.4-12.8 MiB. Compared newest against lowest, the floors after major GCs
// rose at the suspicion rate at 70 polls past the 80 s warm-up; fitted, only where one floor read
// 1.1 MiB above the rest (205 s).
test('real express app under bursts of load: a heap suspicion past the warm-up starts only on a major GC read high', (t) => {
  const series = load('express-bursts');
  t.true(series.at(-1).t - series[0].t >= 290_000, 'the recording covers 290 s');
  t.deepEqual(starts(series, 'heap').filter((s) => s >= 80), [205, 206, 209, 210, 211, 212]);
});
