// When a leak suspicion may start, on real histories (test/fixtures/series/real-*.json, recorded by
// record.js): each poll is asked with a fresh state whether it would start one. A suspicion costs
// the worker forced full GCs and a sampler; a leak's must start as early as ever, a healthy app's
// floor wandering under load must not start one.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { clearOfNoise, confirmStep, newConfirmState } from '../../../src/core/leak/heap-confirm.js';

const MIN_GROWTH = (1024 * 1024) / 60; // the default: 1 MiB/min
const load = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/series/real-${name}.json`, import.meta.url), 'utf8'));

/** Seconds from the first sample (readiness) of every poll that would start a suspicion. */
function starts(series) {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  const readyAt = series[0].t;
  const out = [];
  for (const s of series) {
    w.push({ agent: true, ...s });
    const { action } = confirmStep({ window: w, readyAt, startedAt: readyAt, points: [] }, newConfirmState(), s.t, { minGrowth: MIN_GROWTH, pollInterval: 1000 });
    if (action === 'probe') out.push(Math.round((s.t - readyAt) / 1000));
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

// Leaks recorded under the bench's load: a suspicion could start 18-19 s after readiness before
// the noise gate, and still can (the warm-up hold, not the gate, is what holds them back).
for (const name of ['heap-leak-slow', 'heap-leak-fast', 'buffer-leak', 'native-leak']) {
  test(`real ${name}: a suspicion can start within 25 s of readiness`, (t) => {
    const first = starts(load(name))[0];
    t.true(first !== undefined && first <= 25, `first at ${first} s`);
  });
}

// bench/apps/express-json.js under 10 keep-alive connections, 2 workers, leak detection off
// (record.js --app ... --connections 10). Its heap floor and external memory wander with its socket
// buffers and old-generation garbage; fitted over 30 s they crossed the suspicion rate with r² of
// 0.1-0.6 at 61, 62, 64, 70, 76 and 165-167 s. Past the 80 s a default warm-up hold leaves, none
// may start one.
test('real express app under load: no suspicion starts after the warm-up hold', (t) => {
  const series = load('express-load');
  t.true(series.at(-1).t - series[0].t >= 160_000, 'the recording covers 160 s');
  t.deepEqual(starts(series).filter((s) => s >= 80), []);
});

// Healthy recordings whose floors move: far fewer polls could start a suspicion than before the gate
// (steady 53, sawtooth 179, step 83).
for (const [name, most] of [['steady', 5], ['sawtooth', 8], ['step', 77]]) {
  test(`real ${name}: at most ${most} polls could start a suspicion`, (t) => {
    const s = starts(load(name));
    t.true(s.length <= most, `${s.length}: ${s.join(' ')}`);
  });
}
