// The agent's answer to a confirmation probe (protocol KIND.CONFIRM): the heap, and external
// memory, after a full GC, with the samplers' retained sites while a leak is suspected.
import v8 from 'node:v8';
import { performance } from 'node:perf_hooks';
import { fullGc } from '../full-gc.js';

const GC_SETTLE_MS = 50;

/**
 * One confirmation point of a suspected heap or external leak: the heap after a forced full GC, its
 * pause measured, and (with `profile`) the retained allocations by site; with `buffers`, external
 * memory after two, and the Buffer sampler's retained sites. Without `profile` the profiler stops
 * and its memory goes (without `buffers`, the Buffer sampler); `point: false` only that (the
 * suspicion ended).
 *
 * Always forced: a full GC the worker ran by itself is no point. V8 runs its own as incremental
 * marking alongside the app, and what the app allocates or drops meanwhile survives it; read when
 * its entry reaches us, the heap also holds what was allocated since. On an express app under load
 * (Node 24, 23 of its own major GCs, each followed 100 ms later by two forced ones) the heap after
 * its own read 0.1 to 2.8 MiB above the forced reading, 1.3 MiB at the median, where a leak at
 * 1 MiB/min rises 0.33 MiB between two points: one such point kept a healthy worker's suspicion,
 * and its sites' profiler, going for another 20 s, or ended a leak's.
 */
export async function confirm(state, { point = true, profile = true, buffers = false }) {
  if (!profile) state.profiler.stop();
  if (!buffers) state.buffers.stop();
  if (!point) return { stopped: true };
  if (buffers) state.buffers.start();
  // External memory is read after a forced GC only: a garbage Buffer's bytes leave `external` when
  // its backing store is swept, which V8 finishes at the *next* full GC (Node 20, 24 and 26, measured:
  // 6 MiB of dropped Buffers still counted after one full GC, gone after the second).
  if (buffers) state.buffers.pause();
  const t0 = performance.now();
  fullGc();
  if (buffers) fullGc();
  const pauseMs = performance.now() - t0;
  const taken = { at: Date.now(), heapAfter: v8.getHeapStatistics().used_heap_size, forced: true, pauseMs: Math.round(pauseMs * 10) / 10 };
  // The sampler's finalizers run in a task after the GC.
  if (buffers) await new Promise((resolve) => setTimeout(resolve, GC_SETTLE_MS));
  taken.externalAfter = buffers ? process.memoryUsage().external : null;
  taken.buffers = buffers ? state.buffers.read() : null;
  if (buffers) state.buffers.resume();
  const sites = profile ? await state.profiler.sample() : null;
  return { buffers: null, ...taken, sites, profiler: state.profiler.reason };
}
