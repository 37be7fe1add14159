// V8's sampling heap profiler in the worker. It runs only while the primary suspects a heap leak
// (started by the first confirmation probe, stopped when the leak is confirmed, the suspicion ends
// or the worker drains), so a healthy worker never pays for it. When it cannot run, `reason` says
// why and nothing else changes.
//
// Two ways in. An in-process node:inspector session first, on every line: its profile can be read
// without stopping it, and V8 stops inlining while it runs (inspector-profiler.js, inlining.js).
// Where no session can be had (Node's permission model without --allow-inspector, a Node built
// without the inspector), Node 26's v8.startHeapProfile instead (in-process-profiler.js): sites
// without the inspector, at some precision (its header says what). Neither under --inspect, nor
// while the app's own profiler runs: V8 has one sampling heap profiler per isolate.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import v8 from 'node:v8';
import { flattenProfile } from '../../core/sites/heap-sites.js';
import { inspectorProfiler } from './inspector-profiler.js';
import { inProcessProfiler } from './in-process-profiler.js';

/**
 * Whether a sampling heap profiler already runs in this isolate (the app's v8.startHeapProfile or
 * its own inspector session), where the API can tell (Node 26). Our inspector session cannot: its
 * startSampling succeeds beside one, reads the app's profile, and its stopSampling ends the app's
 * (pinned in node-lines.test.js).
 */
function heldByApp(start) {
  if (typeof start !== 'function') return false;
  try {
    start({ sampleInterval: 1 << 30 }).stop();
    return false;
  } catch (err) {
    return err?.code === 'ERR_HEAP_PROFILE_HAVE_BEEN_STARTED';
  }
}
import { packageVersion } from './package-version.js';

// V8's default sampling interval: one sample per 32 KiB allocated on average (bench/RESULTS.md,
// "Sampling heap profiler cost", has what it costs).
export const SAMPLING_INTERVAL = 32 * 1024;
const OURS = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
/** nodesup's own code (the agent, its samplers): what it allocates is never an app's site. */
export const isOurs = (url) => url.includes(`${OURS}/`);

/**
 * @param {{deopt?: boolean, adapt?: boolean, start?: Function}} [o]  deopt false: the profiler alone, inlining left on
 *   (the cost bench's control); adapt: the interval follows the allocation rate (inspector-profiler.js),
 *   not for a worker profiled from its birth (NODESUP_PROFILE), whose first second is its startup's
 *   allocations, not its load's; start: v8.startHeapProfile, absent before Node 26 (tests pass null)
 */
export function heapProfiler({ deopt = !process.env.NODE_V8_COVERAGE, adapt = process.env.NODESUP_PROFILE !== '1', start = v8.startHeapProfile } = {}) {
  const flatten = (head) => flattenProfile(head, { cwd: process.cwd(), ignore: isOurs, pkg: packageVersion });
  const inspector = inspectorProfiler({ interval: SAMPLING_INTERVAL, deopt, adapt, flatten });
  let inProcess = null;
  let active = null;
  let reason = null;

  return {
    get reason() { return active ? active.reason : reason; },
    /** 'inspector' or 'in-process' while one runs, else null. */
    get via() { return active === inspector ? 'inspector' : active ? 'in-process' : null; },
    /** The sampling interval in bytes while one runs, else null. */
    get interval() { return active === inspector ? inspector.interval : active ? SAMPLING_INTERVAL : null; },
    /** The retained allocations by site now (start sampling first if needed); null when unavailable. */
    async sample() {
      if (active) return active.sample();
      if (heldByApp(start)) {
        reason = 'the heap profiler is in use elsewhere: the app samples the heap itself (v8.startHeapProfile or its own inspector session)';
        return null;
      }
      const sites = await inspector.sample();
      if (sites) { active = inspector; reason = null; return sites; }
      reason = inspector.reason;
      // No reason: stopped while it started (a drain began); nothing else is to start instead.
      if (inspector.heldElsewhere || reason === null) return null;
      inProcess ??= inProcessProfiler({ interval: SAMPLING_INTERVAL, flatten, start });
      if (inProcess.reason) {
        reason = `${inspector.reason}; ${inProcess.reason}`;
        return null;
      }
      active = inProcess;
      reason = null;
      return inProcess.sample();
    },
    /** Stop sampling and free its memory, whichever way it ran; the next sample starts afresh. */
    stop() {
      inspector.stop();
      inProcess?.stop();
      active = null;
    },
  };
}
