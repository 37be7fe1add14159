// The check restates the detectors' timings (it may not import the judges: test/architecture):
// here they are held to the core's own numbers, so a change there fails here, not in a CI log.
import test from 'ava';
import { DETECTORS } from '../../src/check/judging-time.js';
import { CONFIRM } from '../../src/core/leak/heap-confirm.js';
import { LEAK_THRESHOLDS } from '../../src/core/leak/leak-detector.js';
import { HANDLE_THRESHOLDS } from '../../src/core/leak/handle-trend.js';
import { CHILDREN_THRESHOLDS } from '../../src/core/leak/children-trend.js';
import { WARM_UP_MS } from '../../src/core/leak/warm-up.js';
import { validateConfig } from '../../src/config/validate.js';

test('the check\'s timings are the detectors\' own', (t) => {
  t.like(DETECTORS, {
    suspectMinMs: CONFIRM.suspectMinMs, spacingMs: CONFIRM.spacingMs, points: CONFIRM.points, suspect: CONFIRM.suspect,
    windowWarmup: LEAK_THRESHOLDS.warmup, settleMs: LEAK_THRESHOLDS.settleMs,
    handleWindowMs: HANDLE_THRESHOLDS.windowMs, childrenWindowMs: CHILDREN_THRESHOLDS.windowMs, warmUpMs: WARM_UP_MS,
  });
});

test('leak.warmUp\'s default is the hold the check assumes for a config without it', (t) => {
  t.is(validateConfig({}, 'test').leak.warmUp, DETECTORS.warmUpMs);
});
