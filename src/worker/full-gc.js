// A full GC on the primary's request. --expose-gc is the app's choice, not ours: it is switched
// on at run time and gc() taken from a fresh context, leaving the app's global untouched.
//
// Every full GC nodesup forces (this one, the sites' profiler's reads and stop, a heap snapshot)
// first queues a no-op process.nextTick. On Node 22 and 24, six forced full GCs from timers, with
// no tick queued, left process.nextTick's own code at 16–21 % of a hello world's CPU for good,
// against 1–4 % with one queued before each (bench/RESULTS.md, "tick-shapes-node24"; Node 20 and
// 26 are not affected). Our reading of the profiles, whose time sits on the queue entry's object
// literal with computed keys: its shapes are let go by a full GC while no entry is alive, and once
// built afresh often enough, entries leave V8's fast path. A queued entry keeps them alive.
import v8 from 'node:v8';
import vm from 'node:vm';

const noop = () => {};

/** Keep process.nextTick's queue-entry shapes alive through a full GC about to be forced (above). */
export function keepTickShapes() {
  process.nextTick(noop);
}

let gcFn;
/** Run a full (mark-compact) GC now. */
export function fullGc() {
  if (!gcFn) {
    v8.setFlagsFromString('--expose-gc');
    gcFn = vm.runInNewContext('gc');
  }
  keepTickShapes();
  gcFn();
}
