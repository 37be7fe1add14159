// V8's sampling heap profiler in the worker, through an in-process node:inspector session. It runs
// only while the primary suspects a heap leak (started by the first confirmation probe, stopped
// when the leak is confirmed, the suspicion ends or the worker drains), so a healthy worker never
// pays for it. When it cannot run, `reason` says why and nothing else changes.
//
// The profiler records the function V8 is executing, and optimized code has small functions
// inlined into their callers: a leak in a three-line `cacheUser` was filed under the timer callback
// that called it (Node 20 and 24, measured). Precise binary coverage deoptimizes everything and
// keeps callees as frames while it is on, so it runs alongside the profiler (unless the app collects
// coverage itself: NODE_V8_COVERAGE); bench/RESULTS.md has what the two cost together.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { flattenProfile } from '../core/heap-sites.js';
import { packageVersion } from './package-version.js';

// V8's default sampling interval: one sample per 32 KiB allocated on average (bench/RESULTS.md,
// "Sampling heap profiler cost", has what it costs).
export const SAMPLING_INTERVAL = 32 * 1024;
const OURS = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** nodesup's own code (the agent, its samplers): what it allocates is never an app's site. */
export const isOurs = (url) => url.includes(`${OURS}/`);

/** @param {{deopt?: boolean}} [o]  deopt false: the profiler alone, without coverage (the cost bench's control) */
export function heapProfiler({ deopt = !process.env.NODE_V8_COVERAGE } = {}) {
  let session = null;
  let sampling = false;
  let reason = null;

  const post = (method, params = {}) => new Promise((resolve, reject) => {
    session.post(method, params, (err, res) => (err ? reject(err) : resolve(res)));
  });

  async function open() {
    if (session || reason) return Boolean(session);
    let inspector;
    try {
      inspector = await import('node:inspector');
    } catch {
      reason = 'this Node is built without the inspector';
      return false;
    }
    // A debugger attached through --inspect may be profiling itself: do not pull the rug.
    if (inspector.url()) {
      reason = 'the worker runs with --inspect; the heap profiler is left to the debugger';
      return false;
    }
    try {
      session = new inspector.Session();
      session.connect();
    } catch (err) {
      session = null;
      reason = `cannot open an inspector session: ${err?.message ?? err}`;
      return false;
    }
    return true;
  }

  return {
    get reason() { return reason; },
    /** The retained allocations by site now (start sampling first if needed); null when unavailable. */
    async sample() {
      if (!(await open())) return null;
      try {
        if (!sampling) {
          if (deopt) {
            await post('Profiler.enable');
            await post('Profiler.startPreciseCoverage', { callCount: false, detailed: false });
          }
          await post('HeapProfiler.startSampling', { samplingInterval: SAMPLING_INTERVAL });
          sampling = true;
        }
        const { profile } = await post('HeapProfiler.getSamplingProfile');
        return flattenProfile(profile.head, { cwd: process.cwd(), ignore: isOurs, pkg: packageVersion });
      } catch (err) {
        // Someone else (the app's own session) stopped or holds the profiler: give up for good.
        reason = `the heap profiler is in use elsewhere: ${err?.message ?? err}`;
        this.stop();
        return null;
      }
    },
    /** Stop sampling and free its memory; the session closes too, so nothing holds the worker. */
    stop() {
      if (!session) return;
      if (sampling) {
        session.post('HeapProfiler.stopSampling', () => {});
        if (deopt) session.post('Profiler.stopPreciseCoverage', () => session?.post('Profiler.disable', () => {}));
      }
      sampling = false;
      session.disconnect();
      session = null;
    },
  };
}
