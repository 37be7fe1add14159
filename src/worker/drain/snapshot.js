// The heap snapshot a drained worker writes before it leaves, when the primary asked for one in
// its DRAIN (it judged there was room). By then the replacement serves, every server is closed and
// no request is open: the pause and the memory of writing it cost no user anything. What the
// worker was doing when it began, and what the write cost, go beside it in FILE.json, since the
// IPC channel is gone by then and the primary reads the files once the worker has exited.
import fs from 'node:fs';
import v8 from 'node:v8';

/**
 * Write the snapshot `ask.file` now, and its sidecar; never throws (a worker must still leave).
 * @param {{file:string}} ask
 * @param {{openRequests:number, draining:boolean}} at  the drain's state as the write begins
 */
export function writeDrainSnapshot(ask, at) {
  const began = Date.now();
  const heapUsed = v8.getHeapStatistics().used_heap_size;
  const side = { began, openRequests: at.openRequests, draining: at.draining, heapUsed, pid: process.pid };
  try {
    v8.writeHeapSnapshot(ask.file);
    fs.chmodSync(ask.file, 0o600);
    Object.assign(side, { ok: true, writeMs: Date.now() - began, bytes: fs.statSync(ask.file).size, maxRss: process.resourceUsage().maxRSS * 1024 });
  } catch (err) {
    Object.assign(side, { ok: false, writeMs: Date.now() - began, error: String(err?.code ?? err?.message ?? err) });
    try { fs.rmSync(ask.file, { force: true }); } catch { /* nothing to keep */ }
  }
  try {
    fs.writeFileSync(`${ask.file}.json`, JSON.stringify(side), { mode: 0o600 });
  } catch { /* the primary then says the snapshot was not written */ }
}
