// A pprof profile at each named heap or external leak and each memory recycle, from the event
// stream: the sites the event names, with what the worker's samplers hold as live when asked
// (`readLive`, given by the composition root: the report side asks no worker itself). The newest
// is kept for the metrics port's /debug/pprof/heap, where a profiler's scraper pulls it (a file in a
// pod's directory reaches no one); each one is also written into `diagnose.dir`.
import { EVENTS } from '../../constants.js';
import { profileTrigger, evidenceOf, hasSites } from './evidence.js';
import { profileFileName } from './diagnose-dir.js';

// A worker that does not answer at once is draining or busy: the event's own sites still make a profile.
export const READ_TIMEOUT_MS = 1000;
const MAX_NAMED = 256; // workers whose named sites are remembered, in case an exit is never seen

/**
 * @param {object} o
 * @param {import('node:events').EventEmitter} o.events  the supervisor's stream ('event', fields)
 * @param {string} o.name  the supervisor's
 * @param {ReturnType<import('./diagnose-dir.js').diagnoseDir>|null} o.dir
 * @param {(t: {pid:number|null, slot:number, kind:string}) => Promise<{profile?:object|null, buffers?:object|null}|null>} o.readLive
 * @param {(level:string, fields:object, msg:string) => void} o.report  a log line on the stream
 * @param {() => number} [o.now]
 */
export function createProfileWriter({ events, name, dir, readLive, report, now = Date.now }) {
  let latest = null;
  let failing = null; // the last write error said, so a full disk is said once, not at every leak
  const pending = new Set();
  // A leak said again without sites (its window verdict, not its confirmation points) is the same
  // leak: the sites its worker's leak of that kind was named with stand for it until the worker exits.
  const named = new Map();
  const withNamed = (trigger) => {
    const key = `${trigger.pid}:${trigger.kind}`;
    if (!trigger.named.length) return { ...trigger, named: named.get(key) ?? [] };
    named.delete(key);
    if (named.size >= MAX_NAMED) named.delete(named.keys().next().value);
    named.set(key, trigger.named);
    return trigger;
  };

  async function write(trigger, at) {
    let live = null;
    try { live = await readLive(trigger); } catch { /* the event's own sites remain */ }
    const evidence = evidenceOf(trigger, live, { name, at });
    if (!hasSites(evidence)) return;
    // The encoder loads at the first profile: a primary that never names a leak never carries it.
    const { encodePprof, mergeSites } = await import('./pprof.js');
    const bytes = encodePprof(evidence);
    const what = { slot: trigger.slot, kind: trigger.kind, reason: trigger.reason, sites: mergeSites(evidence).length, inuse: evidence.live !== null };
    if (!latest || at >= latest.at) latest = { bytes, at, ...what };
    if (!dir) return;
    try {
      const file = dir.write(profileFileName({ name, at, slot: trigger.slot, kind: trigger.kind, reason: trigger.reason }), bytes);
      failing = null;
      report('info', { slot: trigger.slot, pid: trigger.pid, profile: { file, bytes: bytes.length, kind: trigger.kind, reason: trigger.reason, inuse: what.inuse } },
        `slot ${trigger.slot}: pprof profile of the ${trigger.kind} ${trigger.reason === 'leak' ? 'leak' : `${trigger.reason} recycle`} written to ${file} (go tool pprof -top ${file})`);
    } catch (err) {
      if (failing === err.message) return;
      failing = err.message;
      report('warn', { slot: trigger.slot, pid: trigger.pid, err }, `no pprof profile written: ${err.message}`);
    }
  }

  const onEvent = (fields) => {
    let trigger;
    try {
      if (fields?.event === EVENTS.WORKER_EXIT) for (const key of named.keys()) if (key.startsWith(`${fields.pid}:`)) named.delete(key);
      trigger = profileTrigger(fields);
      if (trigger) trigger = withNamed(trigger);
    } catch { return; }
    if (!trigger) return;
    // A profile's failure must never reach the supervisor that emitted the event.
    const p = write(trigger, now()).catch(() => {}).finally(() => pending.delete(p));
    pending.add(p);
  };
  events.on('event', onEvent);

  return {
    /** The newest profile: {bytes, at, slot, kind, reason, sites, inuse}, or null before the first. */
    latest: () => latest,
    /** Resolves once the profiles being written now are done. */
    settled: () => Promise.all([...pending]).then(() => {}),
    close() {
      events.off('event', onEvent);
    },
  };
}
