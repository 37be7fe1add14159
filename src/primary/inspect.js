// `nodesup inspect <slot>`: one live worker in detail. The judgements (trend, step, leak, advice)
// are the ones the last tick made, read as they were kept, never made again here: inspect, status
// and the metrics cannot disagree. The agent is asked only for what a poll does not carry (heap
// spaces, GC by kind, resources). It returns data; report/inspect-view.js words it.
import fs from 'node:fs';
import path from 'node:path';
import { KIND } from '../protocol.js';
import { NodesupError } from '../errors.js';
import { STATES } from '../constants.js';
import { parseSlot } from '../slot.js';
import { countAnonMappings } from '../proc/memory.js';
import { readCgroup, memoryHeadroom } from '../proc/cgroup.js';
import { snapshotRoom } from '../core/policy/snapshot-room.js';
import { diskFree } from '../proc/disk.js';
import { heapSnapshotRefused } from '../report/retainer-words.js';
import { writeWorkerProfile } from './worker-profile.js';

/**
 * The inspect report of the worker serving in `slot`.
 * @param {object} o
 * @param {import('./lifecycle/pool.js').Pool} o.pool
 * @param {() => import('../types.js').Config} o.config
 * @param {() => number} o.now
 * @param {(id:number) => {judged:object|null, leak:object|null, points:number, profiler:string|null}|null} o.judgementOf
 *   what the last tick concluded of a worker
 * @param {(slot:number) => {pid:number, at:number, held:object[]}|null} [o.retainersOf]  what held the slot's leak in its last drained worker
 */
export async function inspectWorker({ pool, config, now, judgementOf, retainersOf = () => null }, rawSlot, { heapSnapshot, profile } = {}) {
  const slot = parseSlot(rawSlot, pool.slots.length);
  const rec = pool.currentOf(slot);
  if (!rec || rec.state !== STATES.READY) throw new NodesupError('NODESUP_ERR_CONTROL', `slot ${slot} has no ready worker right now; try again in a moment`);
  const detail = await pool.request(rec, KIND.STATS, { detail: true }, 5000);
  const j = judgementOf(rec.id) ?? { judged: null, leak: null, points: 0, profiler: null };
  const judged = j.judged;
  const report = {
    slot, pid: rec.pid, uptimeMs: now() - rec.startedAt, sample: rec.window.last(), limits: config().limits,
    heapSpaces: detail?.heapSpaces ?? null, gcByKind: detail?.gcByKind ?? null, resources: detail?.resources ?? null,
    execArgv: detail?.execArgv ?? null, mappings: countAnonMappings(rec.pid),
    // The tick's judgement, and when it was made.
    judgedAt: judged?.at ?? null,
    gcShareLastMinute: judged?.gcShareLastMinute ?? null,
    /** @deprecated the same as gcShareLastMinute */
    gcShare: judged?.gcShareLastMinute ?? null,
    trend: judged?.trend ?? { rssPerSec: null, heapPerSec: null, rssLimitInSec: null },
    step: judged?.step ?? null,
    leak: j.leak,
    sites: { sites: j.leak?.sites?.length ? j.leak.sites : null, points: j.points, profiler: j.profiler },
    advice: judged?.advice ?? [],
    // What held the slot's leak, read from the heap snapshot of the worker it replaced.
    retainers: retainersOf(slot),
  };
  if (heapSnapshot) report.heapSnapshot = await takeHeapSnapshot(pool, rec, heapSnapshot, slot);
  // The sampled sites as a pprof profile (or .heapprofile), as written at a named leak.
  if (profile) report.profile = await writeWorkerProfile({ pool, rec, leak: j.leak, name: config().name, now }, profile);
  return report;
}

// A heap snapshot costs many times the heap in the worker, and a file twice as large
// (core/policy/snapshot-room.js): refused, with the cheaper way named, when the container or the
// disk has no room for it.
async function takeHeapSnapshot(pool, rec, file, slot) {
  const cg = readCgroup();
  const room = snapshotRoom({ heapUsed: rec.window.last()?.heapUsed ?? null, memoryHeadroom: memoryHeadroom(), diskFree: diskFree(path.dirname(file)), oomGroup: cg.oomGroup });
  if (!room.ok) {
    throw new NodesupError('NODESUP_ERR_NO_ROOM', heapSnapshotRefused(room, slot));
  }
  const r = await pool.request(rec, KIND.HEAP_SNAPSHOT, { file }, 120_000);
  if (!r?.file) throw new NodesupError('NODESUP_ERR_CONTROL', `the heap snapshot of slot ${slot} failed or took over 120 s; nothing was written to ${file}`);
  let bytes = null;
  try { bytes = fs.statSync(r.file).size; } catch { /* removed already */ }
  return { file: r.file, bytes };
}
