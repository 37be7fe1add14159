// V8's sampling heap profiler without an inspector: v8.startHeapProfile (Node 26, experimental).
// Used where no inspector session can be had: Node's permission model denies one without
// --allow-inspector, and a Node can be built without the inspector.
//
// Its handle gives the profile only by stopping it, and a restarted profiler knows nothing of the
// objects sampled before. So each read ends a segment (what was allocated since the last read and
// is still alive) and starts the next, and the reads add the segments up. For a leak that is exact;
// an object kept past one read and freed before the next is still counted (the inspector's reads
// drop it), so a cache that turns over slowly can show as a site. Without the inspector there is
// no precise coverage either: a small function inlined into its caller is filed under the caller.
import v8 from 'node:v8';
import { addProfiles } from '../../core/sites/heap-sites.js';

/**
 * @param {{interval:number, flatten:(head:object) => import('../../core/sites/heap-sites.js').FlatProfile, start?:Function}} o
 *   start: v8.startHeapProfile by default (absent before Node 26)
 */
export function inProcessProfiler({ interval, flatten, start = v8.startHeapProfile }) {
  let handle = null;
  let sum = null;
  let reason = typeof start === 'function' ? null : `Node ${process.versions.node} has no v8.startHeapProfile (Node 26 has)`;

  const self = {
    get reason() { return reason; },
    /** Every segment's retained allocations by site, added up; null when unavailable. */
    sample() {
      if (reason) return null;
      try {
        if (handle) {
          const raw = handle.stop();
          handle = null;
          sum = addProfiles(sum, flatten(JSON.parse(raw).head));
        } else {
          sum = { total: 0, sites: [] };
        }
        handle = start({ sampleInterval: interval });
        return sum;
      } catch (err) {
        // ERR_HEAP_PROFILE_HAVE_BEEN_STARTED: the app (or a debugger) runs a sampling profiler.
        reason = `the heap profiler is in use elsewhere: ${err?.message ?? err}`;
        self.stop();
        return null;
      }
    },
    /** Stop sampling and free its memory. */
    stop() {
      try { handle?.stop(); } catch { /* already stopped by whoever else */ }
      handle = null;
      sum = null;
    },
  };
  return self;
}
