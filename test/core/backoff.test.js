import test from 'ava';
import { restartDelay, crashesInWindow, shouldGiveUp } from '../../src/core/backoff.js';

const restart = { initialDelay: 100, maxDelay: 30_000, maxCrashes: 3, crashWindow: 60_000 };

test('restartDelay grows exponentially and is capped', (t) => {
  t.deepEqual([1, 2, 3, 4, 10, 100].map((n) => restartDelay(n, restart)), [100, 200, 400, 800, 30_000, 30_000]);
});

test('crashesInWindow keeps only recent crashes; shouldGiveUp at maxCrashes', (t) => {
  t.deepEqual(crashesInWindow([1000, 50_000, 70_000], 100_000, 60_000), [50_000, 70_000]);
  t.false(shouldGiveUp(2, restart));
  t.true(shouldGiveUp(3, restart));
});
