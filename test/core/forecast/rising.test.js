// "Rising toward the limit", the one definition the GC-before-recycle, the profiler's early start,
// the hot poll and the early replacement judge by.
import test from 'ava';
import { risingAtEverySample, msToLimit } from '../../../src/core/forecast/rising.js';

const RISING = [
  // [title, points, options, rate per ms or null]
  ['three samples, each higher: the rate from the first to the last', [[0, 100], [1000, 110], [2000, 130]], {}, 0.015],
  ['an uneven rise is still a rise; the rate spans the whole', [[0, 0], [500, 1], [3000, 600]], {}, 0.2],
  ['a flat sample breaks it', [[0, 100], [1000, 110], [2000, 110], [3000, 140]], {}, null],
  ['a dip breaks it', [[0, 100], [1000, 120], [2000, 115], [3000, 140]], {}, null],
  ['a step, then flat: garbage built in one go', [[0, 50], [1000, 50], [2000, 209], [3000, 209]], {}, null],
  ['two samples are a step, not a rise, at the default', [[0, 50], [1000, 209]], {}, null],
  ['two samples, where two are asked for', [[0, 50], [1000, 60]], { min: 2 }, 0.01],
  ['one sample says nothing, however few are asked for', [[0, 50]], { min: 1 }, null],
  ['none', [], {}, null],
  ['falling', [[0, 300], [1000, 200], [2000, 100]], {}, null],
  ['no time between the ends', [[5, 1], [5, 2], [5, 3]], {}, null],
];
for (const [title, points, o, want] of RISING) {
  test(`risingAtEverySample: ${title}`, (t) => {
    const got = risingAtEverySample(points, o);
    if (want === null) t.is(got, null);
    else t.true(Math.abs(got - want) < 1e-12, `${got}`);
  });
}

const TO_LIMIT = [
  // [title, value, perMs, limit, ms or null]
  ['30 to go at 0.02 a ms', 120, 0.02, 150, 1500],
  ['at the limit: the verdict\'s business', 150, 0.02, 150, null],
  ['over the limit', 160, 0.02, 150, null],
  ['flat never reaches it', 120, 0, 150, null],
  ['falling never reaches it', 120, -0.5, 150, null],
  ['no limit', 120, 0.02, null, null],
  ['value unknown', null, 0.02, 150, null],
  ['rate unknown', 120, null, 150, null],
];
for (const [title, value, perMs, limit, want] of TO_LIMIT) {
  test(`msToLimit: ${title}`, (t) => t.is(msToLimit(value, perMs, limit), want));
}
