// A full GC on the primary's request, with V8's gc(), which each worker starts with under a name
// of ours (--expose-gc-as; src/primary/lifecycle/agent-args.js), taken here as the agent loads,
// before the app runs, and its global emptied: `gc` itself stays the app's choice. nodesup used to
// take gc() from a fresh vm context instead, and making that context was what slowed nextTick
// (below) in a worker for good: made as the agent loaded, a hello world's workers spent 11–16 % of
// their CPU in nextTick's own code from their first second, against ~2.5 % (CPU profiles,
// docs/leaks.md). Where the user gives --expose-gc, that gc() serves; only a process nodesup did
// not start (a bench's app) still takes the old way.
//
// Every full GC nodesup forces (this one, the sites' profiler's reads and stop, a heap snapshot)
// first queues a no-op process.nextTick. On Node 22 and 24, six forced full GCs from timers, with
// no tick queued, left process.nextTick's own code at 16–21 % of a hello world's CPU for good,
// against 1–4 % with one queued before each (bench/RESULTS.md, "tick-shapes-node24"; Node 20 and
// 26 are not affected). Our reading of the profiles, whose time sits on the queue entry's object
// literal with computed keys: its shapes are let go by a full GC while no entry is alive, and once
// built afresh often enough, entries leave V8's fast path. A queued entry keeps them alive.
//
// On Node 22 no forced GC is needed for it: a worker left idle 25 s spent 370–540 ns a nextTick
// afterwards against 50–90 ns fresh, bare node:cluster workers alike (our reading: V8 collects an
// idle heap by itself, with no tick in flight), and under bursts of load with idle gaps between,
// nodesup's workers spent 16 % of their busy CPU in nextTick's own code against bare's 1.4 %
// (docs/leaks.md). So the agent also holds one queue entry for the worker's life (holdTickShapes):
// idle, the cost stayed at 50–90 ns. Node 24 and 26 idle workers were not slowed either way.
import v8 from 'node:v8';
import vm from 'node:vm';
import { createHook } from 'node:async_hooks';
import { GC_GLOBAL } from '../constants.js';

const noop = () => {};

/** Keep process.nextTick's queue-entry shapes alive through a full GC about to be forced (above). */
export function keepTickShapes() {
  process.nextTick(noop);
}

let heldTick = null;

/**
 * Keep one process.nextTick queue entry alive for good, and with it the shapes its kind is built
 * with, through every full GC, V8's own included (above). The entry is only reachable as an async
 * hook's resource: a hook is on for that one nextTick and off again before anything else runs.
 * @returns {object|null} the entry held, null where none could be had
 */
export function holdTickShapes() {
  if (heldTick) return heldTick;
  const hook = createHook({ init(id, type, trigger, resource) { if (type === 'TickObject') heldTick ??= resource; } });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
  return heldTick;
}

let gcFn = takeGc();

// Read as the agent loads, before the app runs: a `gc` function there is V8's, the user's
// --expose-gc (another preload's at most).
function takeGc() {
  const ours = globalThis[GC_GLOBAL];
  if (typeof ours === 'function') {
    globalThis[GC_GLOBAL] = undefined;
    return ours;
  }
  return typeof globalThis.gc === 'function' ? globalThis.gc : null;
}

/** Run a full (mark-compact) GC now. */
export function fullGc() {
  if (!gcFn) {
    v8.setFlagsFromString('--expose-gc');
    gcFn = vm.runInNewContext('gc');
  }
  keepTickShapes();
  gcFn();
}
