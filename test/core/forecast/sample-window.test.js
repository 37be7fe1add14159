import test from 'ava';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';

test('SampleWindow: bounded by age and count, series skips nulls', (t) => {
  const w = new SampleWindow({ maxAgeMs: 5000, maxSamples: 4 });
  for (let i = 0; i <= 10; i++) w.push({ t: i * 1000, heapUsed: i % 3 === 0 ? null : i });
  t.is(w.size, 4);
  t.is(w.last().t, 10_000);
  t.deepEqual(w.series('heapUsed'), [[7000, 7], [8000, 8], [10_000, 10]]);
  t.deepEqual(w.since(9000).map((s) => s.t), [9000, 10_000]);
  t.is(w.span(), 3000);
  const byAge = new SampleWindow({ maxAgeMs: 2500 });
  for (let i = 0; i <= 10; i++) byAge.push({ t: i * 1000 });
  t.deepEqual(byAge.samples.map((s) => s.t), [8000, 9000, 10_000]);
});

test('SampleWindow: since and rateOf find the window\'s start by bisection, as a scan would (uneven gaps, duplicates, nulls)', (t) => {
  const w = new SampleWindow({ maxAgeMs: 1e9 });
  let at = 1000;
  for (let i = 0; i < 300; i++) {
    at += [0, 1, 7, 250, 1000][(i * 7) % 5]; // repeated timestamps too
    w.push({ t: at, gcMs: i % 11 === 0 ? null : i * 2 });
  }
  const scanIndex = (since) => { const i = w.samples.findIndex((x) => x.t >= since); return i < 0 ? w.samples.length : i; };
  for (const since of [-Infinity, 0, 1000, 1001, w.samples[37].t, w.samples[37].t + 1, w.samples[150].t, at, at + 1]) {
    t.is(w.indexSince(since), scanIndex(since), `since ${since}`);
    t.deepEqual(w.since(since), w.samples.filter((x) => x.t >= since));
    const first = w.samples.find((x) => x.t >= since && x.gcMs != null);
    const last = w.last();
    const want = !first || last.t <= first.t ? null : (last.gcMs - first.gcMs) / (last.t - first.t);
    t.is(w.rateOf('gcMs', since), want, `rateOf since ${since}`);
  }
});

test('SampleWindow: a column stays index for index with the samples through drops by age and by count, NaN where a sample has no value, whenever it was first asked for', (t) => {
  const w = new SampleWindow({ maxAgeMs: 40_000, maxSamples: 25 });
  const values = (win, field) => win.samples.map((s) => (s[field] == null ? NaN : s[field]));
  let early = null;
  for (let i = 0; i < 200; i++) {
    // uneven gaps: some pushes drop one sample by count, some several by age
    const gap = [1000, 1000, 9000, 500][i % 4];
    w.push({ t: (w.last()?.t ?? 0) + gap, heapFloor: i % 7 === 0 ? null : i * 10, external: i % 5 === 0 ? undefined : -i });
    if (i === 3) early = w.column('heapFloor');
    if (i === 120) t.deepEqual(w.column('external'), values(w, 'external'), 'asked late: built from the window as it is');
    t.deepEqual(w.column('heapFloor'), values(w, 'heapFloor'), `after push ${i}`);
    t.deepEqual(w.column('t'), w.samples.map((s) => s.t));
  }
  t.is(early, w.column('heapFloor'), 'one column per field, kept up to date rather than rebuilt');
  t.deepEqual(w.column('external'), values(w, 'external'));
});

test('SampleWindow: a table of counts equal to the previous sample\'s is kept as that one object; a changed one is kept as it came', (t) => {
  const w = new SampleWindow({ maxAgeMs: 1e9 });
  const first = { TCPServerWrap: 1, Timeout: 2 };
  w.push({ t: 1, resources: first, fdKinds: null });
  w.push({ t: 2, resources: { Timeout: 2, TCPServerWrap: 1 }, fdKinds: { socket: 3 } });
  t.is(w.samples[1].resources, first, 'same counts, keys in another order: shared');
  const more = { TCPServerWrap: 1, Timeout: 2, PipeWrap: 1 };
  w.push({ t: 3, resources: more, fdKinds: { socket: 3 } });
  t.is(w.samples[2].resources, more, 'a type more: its own');
  t.is(w.samples[2].fdKinds, w.samples[1].fdKinds, 'every table field, not resources alone');
  const fewer = { TCPServerWrap: 1, Timeout: 2 };
  w.push({ t: 4, resources: fewer });
  t.is(w.samples[3].resources, fewer, 'a type fewer: its own');
  w.push({ t: 5, resources: { TCPServerWrap: 1, Timeout: 3 } });
  t.deepEqual(w.samples[4].resources, { TCPServerWrap: 1, Timeout: 3 }, 'a count changed: as it came');
  t.not(w.samples[4].resources, fewer);
  t.deepEqual(w.column('t'), [1, 2, 3, 4, 5]);
});
