// What holds a leak, in words (the `held` of a retainer analysis, docs/retainers.md): the log line
// of `worker.retainers`, inspect, and the CI gate's report say it the same way.
import { formatBytes } from '../units.js';

/**
 * One holder: "recentRequests (Array of 12,004 IncomingMessage) declared at server.js:11", with
 * the package it lies in, or the library whose object holds it (", inside prom-client@15.1.3"). A string is taken as already said.
 * @param {string|{text?:string, count?:number, type?:string, path?:string[], holder?:{name:string, file?:string, line?:number, package?:string, inside?:string}}} h
 */
export function describeHolder(h) {
  if (typeof h === 'string') return h;
  if (h.text) return h.text;
  const who = h.holder ?? {};
  const container = h.path?.length > 1 ? h.path.at(-1) : null;
  const count = h.count != null ? `${h.count.toLocaleString('en-US')} ` : '';
  const what = h.type ? ` (${container ? `${container} of ` : ''}${count}${h.type})` : '';
  const where = who.file ? ` declared at ${who.file}${who.line != null ? `:${who.line}` : ''}` : '';
  const pkg = who.package ? ` in ${who.package}` : who.inside ? `, inside ${who.inside}` : '';
  return `${who.name ?? 'an object'}${what}${where}${pkg}`;
}

/** The first holder with its share: "93 % held by recentRequests (…) declared at app.js:11". */
export function describeHeld(held) {
  const top = held?.[0];
  if (!top) return 'no holder of the growth found';
  const share = top.share != null && top.share <= 1.5 ? `${Math.round(Math.min(1, top.share) * 100)} % ` : `${formatBytes(top.bytes)} `;
  return `${share}held by ${describeHolder(top)}`;
}

/** A `worker.retainers` event in a few words. */
export function describeRetainers(f) {
  if (!f.taken) {
    const short = f.needBytes != null ? `: needs ~${formatBytes(f.needBytes)}, ${formatBytes(f.haveBytes)} free${f.oomGroup ? ' (twice the peak: memory.oom.group is 1)' : ''}` : '';
    return `no heap snapshot (${f.why ?? 'not written'}${short})`;
  }
  if (f.analysed === false) return `heap snapshot written in ${seconds(f.snapshotMs)}, not analysed: ${f.error}`;
  return `${describeHeld(f.held)} (snapshot of ${formatBytes(f.heapBytes)} of heap: written in ${seconds(f.snapshotMs)}, read in ${seconds(f.analysisMs)})`;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Why a heap snapshot was refused (core/policy/snapshot-room.js gives the numbers), and the
 * cheaper way to the same answer.
 * @param {{code:'heap-unknown'|'memory'|'disk', needBytes?:number, haveBytes?:number}} room
 * @param {number} slot
 */
export function heapSnapshotRefused(room, slot) {
  const why = room.code === 'memory' ? `it needs ~${formatBytes(room.needBytes)} of memory${room.oomGroup ? ' (twice the peak: memory.oom.group is 1, so a miss ends every process in the container)' : ''} and only ${formatBytes(room.haveBytes)} is left before the memory limit`
    : room.code === 'disk' ? `the file needs ~${formatBytes(room.needBytes)} and only ${formatBytes(room.haveBytes)} is free on its disk`
      : 'the worker has not reported its heap yet';
  return `heap snapshot refused: ${why}; \`nodesup inspect ${slot}\` names the code that retains memory from the sampling heap profile, at a fraction of the cost`;
}
