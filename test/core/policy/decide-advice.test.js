// Advice through the decide step: what advise() says of the newest sample with the GC rates on top,
// and native memory's trend read from the window only when the gap asks for it. The window's
// samples are frozen: the decision reads them and never writes on them.
import test from 'ava';
import { decide, newPolicyState } from '../../../src/core/policy/decide.js';
import { advise } from '../../../src/core/policy/advice.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { gcShareLastMinute, scavenger } from '../../../src/core/forecast/worker-trend.js';
import { EVENTS, ADVICE } from '../../../src/constants.js';

const MiB = 1024 * 1024;
const CONFIG = {
  workers: 1, pollInterval: 1000, leak: false, unresponsive: { timeout: 15_000 },
  limits: { rss: null, heapUsed: null, native: null, totalRss: null, maxAge: null, maxRequests: null, jitter: 0, sustain: 0 },
  recycle: { maxConcurrent: 1, readyTimeout: 30_000, killTimeout: 10_000 },
};

/** A worker's window: 150 s of samples a second apart, native memory from nativeAt(s). */
function workerOf(nativeAt, extra = {}) {
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  for (let s = 0; s <= 150; s++) {
    window.push(Object.freeze({
      t: s * 1000, pid: 7, rss: 665 * MiB, treeRss: 665 * MiB, heapUsed: 100 * MiB, heapTotal: 129 * MiB, heapFloor: 90 * MiB,
      external: 24 * MiB, native: nativeAt(s), gcMs: s * 2, minorGcCount: s, minorGcMs: s, delayP99: 5, fds: 20, handles: 2, agent: true, ...extra,
    }));
  }
  return { id: 1, slot: 0, pid: 7, startedAt: 0, readyAt: 0, lastReplyAt: 150_000, jitterDraw: 0, window };
}

const adviceOf = (w) => decide(newPolicyState(1), [w], 150_000, { config: CONFIG, totalLimit: null, cgroupLimit: null })
  .notices.filter((n) => n.fields.event === EVENTS.ADVICE && n.fields.code === ADVICE.NATIVE_GAP).map((n) => n.fields);

test('a large native gap that rises is advised as rising, one that holds still as flat', (t) => {
  const rising = adviceOf(workerOf((s) => 512 * MiB + s * 100 * 1024));
  t.is(rising.length, 1);
  t.true(rising[0].rising);
  const flat = adviceOf(workerOf(() => 512 * MiB));
  t.is(flat.length, 1);
  t.false(flat[0].rising);
});

test('the judgement carries what advise() says of the newest sample with the GC rates on top', (t) => {
  const w = workerOf(() => 512 * MiB, { delayP99: 400, cpuWaitShare: 0.01 });
  const { judgements } = decide(newPolicyState(1), [w], 150_000, { config: CONFIG, totalLimit: null, cgroupLimit: null });
  const last = w.window.last();
  const expected = advise({ ...last, gcShareLastMinute: gcShareLastMinute(w.window, 150_000), ...scavenger(w.window, 150_000), nativeRising: false }, { limits: CONFIG.limits, cgroupLimit: null });
  t.deepEqual(judgements[0].judged.advice, expected);
  t.true(expected.some((a) => a.code === ADVICE.LOOP_DELAY), 'the loop delay is advised too');
});
