// A full GC on the primary's request. --expose-gc is the app's choice, not ours: it is switched
// on at run time and gc() taken from a fresh context, leaving the app's global untouched.
//
// Every full GC nodesup forces (this one, the sites' profiler's reads and stop, a heap snapshot)
// first queues a no-op process.nextTick. On Node 22 and 24, six forced full GCs from timers, with
// no tick queued, left process.nextTick's own code at 16–21 % of a hello world's CPU for good,
// against 1–4 % with one queued before each (bench/RESULTS.md, "tick-shapes-node24"; Node 26 is not
// affected): nextTick builds its queue entries with computed keys, one shape at a time, and a
// full GC while none is alive lets those shapes go; built again after enough of them, the entries
// no longer take V8's fast path. A queued entry keeps them alive through the GC.
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
