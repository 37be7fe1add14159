// Whether a heap snapshot of a worker can be taken without risking the pod, and what it will cost.
// Writing one costs far more than the heap: V8 builds the whole graph in the worker before it
// writes, and its memory follows the count of objects more than their bytes. Measured on a heap of
// a million small objects (bench/snapshot-cost.js: 160 MB of heap, 4.4 M nodes), the writer's RSS
// peaked at 2.4–2.6 GB on Node 20 and 24, 13–15× the heap beside it, and the file was 2× the heap;
// the analyser peaked at 2.0–2.3× the file (3× for a small file, where Node's own floor counts).
// The larger ends, so a refusal errs on the side of the pod. Pure: numbers in, a decision out.
import { BUDGET } from './memory-budget.js';

const MiB = 1024 * 1024;

export const SNAPSHOT_COST = Object.freeze({
  write: 15, // × the used heap: the writing worker's peak, beyond what it holds already
  file: 2, // × the used heap: the file's size on disk
  analyse: 3, // × the file: the analyser's peak RSS
  analyseFloor: 64 * MiB, // Node's own memory in the analyser, whatever the file
  // Where memory.oom.group is 1 a miss costs every process in the container, not the worker:
  // the room must be this many times what is needed.
  oomGroup: 2,
});

/**
 * @param {{heapUsed:number|null, memoryHeadroom:number|null, diskFree:number|null, oomGroup?:boolean|null, replacements?:number}} o
 *   memoryHeadroom: bytes before the container's limit (or MemAvailable on a host); diskFree: bytes
 *   where the file goes; replacements: replacement workers that may start meanwhile (the recycle
 *   planner's room, one memory budget)
 * @returns {{ok:true, need:number, fileBytes:number}|{ok:false, need:number, code:'heap-unknown'|'memory'|'disk', needBytes?:number, haveBytes?:number, oomGroup?:boolean}}
 *   a refusal's code says what is short, needBytes and haveBytes by how much (report/inspect-view.js words it)
 */
export function snapshotRoom({ heapUsed, memoryHeadroom, diskFree, oomGroup = null, replacements = 0 }) {
  const C = SNAPSHOT_COST;
  const fileBytes = Math.ceil((heapUsed ?? 0) * C.file);
  const peak = Math.max((heapUsed ?? 0) * C.write, fileBytes * C.analyse + C.analyseFloor);
  const need = Math.ceil(peak * (oomGroup ? C.oomGroup : 1) + replacements * BUDGET.replacement);
  if (heapUsed === null) return { ok: false, need, code: 'heap-unknown' };
  if (memoryHeadroom !== null && memoryHeadroom < need) {
    return { ok: false, need, code: 'memory', needBytes: need, haveBytes: Math.max(0, memoryHeadroom), ...(oomGroup ? { oomGroup: true } : {}) };
  }
  const diskNeed = Math.ceil(fileBytes * 1.25);
  if (diskFree !== null && diskFree < diskNeed) {
    return { ok: false, need, code: 'disk', needBytes: diskNeed, haveBytes: diskFree };
  }
  return { ok: true, need, fileBytes };
}
