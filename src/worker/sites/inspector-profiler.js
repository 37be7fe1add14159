// V8's sampling heap profiler through an in-process node:inspector session, on every Node line.
// The profile can be read while sampling goes on, so each read holds every sampled object still
// alive since sampling began (what retainedSites diffs). With `deopt`, precise binary coverage runs
// alongside: optimized code has small functions inlined into their callers, and the profiler
// records the function V8 is executing, so a leak in a three-line `cacheUser` was filed under the
// timer callback that called it (Node 20, 24 and 26, measured). Coverage deoptimizes everything and
// keeps callees as frames while it is on (unless the app collects coverage itself: NODE_V8_COVERAGE);
// bench/RESULTS.md has what the two cost together.

/**
 * @param {{interval:number, deopt:boolean, flatten:(head:object) => import('../../core/sites/heap-sites.js').FlatProfile}} o
 */
export function inspectorProfiler({ interval, deopt, flatten }) {
  let session = null;
  let sampling = false;
  let reason = null;
  // A debugger's own session, or an app's, holds the one sampling profiler: theirs, not to take.
  let heldElsewhere = false;

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
      heldElsewhere = true;
      return false;
    }
    try {
      session = new inspector.Session();
      session.connect();
    } catch (err) {
      session = null;
      // ERR_ACCESS_DENIED: Node's permission model (--permission without --allow-inspector).
      reason = `cannot open an inspector session: ${String(err?.message ?? err).trim()}`;
      return false;
    }
    return true;
  }

  const self = {
    get reason() { return reason; },
    /** True when the profiler is someone else's (a debugger, the app): no other way may take it. */
    get heldElsewhere() { return heldElsewhere; },
    /** The retained allocations by site now (start sampling first if needed); null when unavailable. */
    async sample() {
      if (!(await open())) return null;
      try {
        if (!sampling) {
          if (deopt) {
            await post('Profiler.enable');
            await post('Profiler.startPreciseCoverage', { callCount: false, detailed: false });
          }
          await post('HeapProfiler.startSampling', { samplingInterval: interval });
          sampling = true;
        }
        const { profile } = await post('HeapProfiler.getSamplingProfile');
        return flatten(profile.head);
      } catch (err) {
        // Someone else (the app's own session) stopped or holds the profiler: give up for good.
        reason = `the heap profiler is in use elsewhere: ${err?.message ?? err}`;
        heldElsewhere = true;
        self.stop();
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
  return self;
}
