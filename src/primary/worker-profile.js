// A live worker's sampled sites as leak evidence: what its heap profiler (and, for external memory,
// its Buffer sampler) holds as live now, asked of its agent without a GC (protocol KIND.SITES). The
// profile writer asks it at each named leak and memory recycle; `nodesup inspect --profile` asks it
// of one worker and writes the file. The samplers run only while a leak is suspected or a worker
// fills fast: a worker without one has nothing live to give, and inspect says so.
import fs from 'node:fs';
import path from 'node:path';
import { KIND } from '../protocol.js';
import { LEAK_KINDS } from '../constants.js';
import { NodesupError } from '../errors.js';
import { evidenceOf, hasSites } from '../report/profiles/evidence.js';

/**
 * What worker `pid`'s samplers hold now ({profile, buffers, profiler}), or null when it is gone or
 * did not answer within timeoutMs.
 * @param {import('./lifecycle/pool.js').Pool} pool
 */
export async function readLiveSites(pool, pid, kind, timeoutMs) {
  const rec = pool.records().find((r) => r.pid === pid);
  if (!rec) return null;
  return pool.request(rec, KIND.SITES, { buffers: kind === LEAK_KINDS.EXTERNAL }, timeoutMs);
}

/**
 * `inspect <slot> --profile FILE`: the worker's sites, with its named leak's growth, as pprof
 * (or V8's .heapprofile for Chrome DevTools when FILE ends so), written 0600. Throws
 * NODESUP_ERR_CONTROL, saying why, when no sampler runs and no leak is named: nothing to write.
 * @param {{pool: import('./lifecycle/pool.js').Pool, rec: object, leak: object|null, name: string, now: () => number}} o
 * @param {string} file  absolute
 */
export async function writeWorkerProfile({ pool, rec, leak, name, now }, file) {
  const kind = leak?.kind === LEAK_KINDS.EXTERNAL ? LEAK_KINDS.EXTERNAL : LEAK_KINDS.HEAP;
  const live = await readLiveSites(pool, rec.pid, kind, 5000);
  const trigger = { kind, reason: 'inspect', slot: rec.slot, pid: rec.pid, named: leak?.kind === kind ? leak.sites ?? [] : [] };
  const evidence = evidenceOf(trigger, live, { name, at: now() });
  if (!hasSites(evidence)) {
    const why = live?.profiler ? ` (${live.profiler})` : '';
    throw new NodesupError('NODESUP_ERR_CONTROL', `slot ${rec.slot} (pid ${rec.pid}) has no sampled sites to write: its heap profiler runs only while a leak is suspected or the worker fills fast${why}; nothing was written to ${file}. Try again while \`nodesup status\` shows a leak, or use --heap-snapshot`);
  }
  // Loaded when asked: the resting primary does not carry the encoder.
  const { encodePprof, heapProfileJson, mergeSites } = await import('../report/profiles/pprof.js');
  const heapprofile = file.endsWith('.heapprofile');
  const bytes = heapprofile ? Buffer.from(heapProfileJson(evidence)) : encodePprof(evidence);
  try {
    fs.writeFileSync(file, bytes, { mode: 0o600 });
    fs.chmodSync(file, 0o600); // an existing file keeps its mode through writeFileSync
  } catch (err) {
    throw new NodesupError('NODESUP_ERR_CONTROL', `cannot write ${file}: ${err.code ?? err.message}; choose a path in a directory you may write`, { cause: err });
  }
  return { file: path.resolve(file), bytes: bytes.length, format: heapprofile ? 'heapprofile' : 'pprof', sites: mergeSites(evidence).length, inuse: evidence.live !== null };
}
