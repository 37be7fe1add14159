// Every full GC nodesup forces in a worker queues a process.nextTick first, so that nextTick's
// queue-entry shapes live through it (src/worker/full-gc.js says why; bench/tick-shapes.js measures
// what a GC forced without one leaves). Seen here as the TickObject created within the call.
import test from 'ava';
import { createHook } from 'node:async_hooks';
import { fullGc, holdTickShapes } from '../../src/worker/full-gc.js';
import { heapProfiler } from '../../src/worker/sites/heap-profiler.js';

/** How many process.nextTick entries `fn` queued while it ran (synchronously). */
function ticksDuring(fn) {
  let n = 0;
  const hook = createHook({ init(id, type) { if (type === 'TickObject') n++; } }).enable();
  try {
    fn();
  } finally {
    hook.disable();
  }
  return n;
}

test.serial('a forced full GC queues a tick before it runs', (t) => {
  t.true(ticksDuring(() => fullGc()) >= 1);
});

test.serial('the sites\' profiler queues a tick before each call that forces a full GC: its reads and its stop', async (t) => {
  const p = heapProfiler({ deopt: false, adapt: false, start: null });
  t.teardown(() => p.stop());
  t.truthy(await p.sample(), String(p.reason));
  let reads = 0;
  const hook = createHook({ init(id, type) { if (type === 'TickObject') reads++; } }).enable();
  try {
    t.truthy(await p.sample());
  } finally {
    hook.disable();
  }
  t.true(reads >= 1, 'a read of the profile');
  t.true(ticksDuring(() => p.stop()) >= 1, 'the stop');
});

test.serial('one nextTick queue entry is held for good, the same one through full GCs', (t) => {
  const held = holdTickShapes();
  t.truthy(held, 'an entry is held');
  t.is(typeof held.callback, 'function');
  t.is(ticksDuring(() => t.is(holdTickShapes(), held)), 0, 'held once: a second call queues nothing');
  fullGc();
  t.is(holdTickShapes(), held);
});
