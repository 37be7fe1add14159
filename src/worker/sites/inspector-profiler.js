// V8's sampling heap profiler through an in-process node:inspector session, on every Node line.
// The profile can be read while sampling goes on, so each read holds every sampled object still
// alive since sampling began (what retainedSites diffs). With `deopt`, V8 stops inlining while
// sampling runs, so that small functions keep their own frames (inlining.js); not where the app
// collects coverage itself (NODE_V8_COVERAGE): the deoptimization goes through coverage, and its
// coverage already keeps callees as frames.
//
// What sampling costs grows with the samples taken (a stack walk and a weak handle each), so with
// `adapt` the interval follows the app's allocation rate: sampling starts at `interval`, and after CALIBRATE_MS the count of samples taken (the newest sample's
// ordinal, collected objects' samples kept for that second) says the rate; sampling then restarts,
// without them, at `interval` or, above MAX_SAMPLES_PER_SEC, at the power-of-two multiple of it
// that brings the rate under, before any profile is read. A worker allocating little keeps
// the fine interval; one allocating hundreds of MB/s pays a bounded share, and names a slow leak
// from fewer samples. V8 scales each sample by its interval, so bytes by site stay comparable.
import { setTimeout as delay } from 'node:timers/promises';
import { setInlining } from './inlining.js';
import { keepTickShapes } from '../full-gc.js';

const CALIBRATE_MS = 1000;
export const MAX_SAMPLES_PER_SEC = 250;
export const MAX_INTERVAL = 2 * 1024 * 1024;

/**
 * The interval for an allocation rate seen as `samplesPerSec` samples a second at `base` bytes:
 * `base` times the smallest power of two that brings the rate under MAX_SAMPLES_PER_SEC, at most MAX_INTERVAL.
 */
export function intervalFor(samplesPerSec, base) {
  let interval = base;
  while (interval < MAX_INTERVAL && samplesPerSec * (base / interval) > MAX_SAMPLES_PER_SEC) interval *= 2;
  return Math.min(interval, Math.max(base, MAX_INTERVAL));
}

const KEEP_COLLECTED = Object.freeze({ includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });

const newestOrdinal = (samples) => {
  let n = 0;
  for (const x of samples ?? []) if (x.ordinal > n) n = x.ordinal;
  return n;
};

/**
 * @param {{interval:number, deopt:boolean, adapt?:boolean, flatten:(head:object) => import('../../core/sites/heap-sites.js').FlatProfile}} o
 *   adapt: calibrate the interval to the allocation rate (above); false: `interval` throughout
 */
export function inspectorProfiler({ interval, deopt, adapt = false, flatten }) {
  let session = null;
  let sampling = false;
  let starting = null;
  let run = 0; // which start a stop() ended: a calibration outlived by a stop must not restart sampling
  let current = null;
  let reason = null;
  // A debugger's own session, or an app's, holds the one sampling profiler: theirs, not to take.
  let heldElsewhere = false;
  // Set from the moment inlining is turned off: a start that failed after it (the app's own session
  // holds the profiler) must still turn it back on.
  let inliningOff = false;

  // Reading the profile and stopping it each force a full GC (keepTickShapes says what that needs).
  const post = (method, params = {}) => new Promise((resolve, reject) => {
    keepTickShapes();
    session.post(method, params, (err, res) => (err ? reject(err) : resolve(res)));
  });
  const send = (method, params = {}) => session.post(method, params, () => {});

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

  async function begin() {
    const mine = run;
    if (deopt) {
      setInlining(false, send);
      inliningOff = true;
    }
    // Calibrating, collected objects keep their samples: a profile otherwise holds only the live
    // ones, and one read just after a scavenge of pure churn would count almost none.
    await post('HeapProfiler.startSampling', { samplingInterval: interval, ...(adapt ? KEEP_COLLECTED : {}) });
    current = interval;
    if (adapt) {
      const t0 = performance.now();
      await delay(CALIBRATE_MS);
      if (mine !== run) return;
      const { profile } = await post('HeapProfiler.getSamplingProfile');
      const next = intervalFor(newestOrdinal(profile.samples) / ((performance.now() - t0) / 1000), interval);
      if (mine !== run) return;
      await post('HeapProfiler.stopSampling');
      await post('HeapProfiler.startSampling', { samplingInterval: next });
      current = next;
    }
    if (mine === run) sampling = true;
  }

  const self = {
    get reason() { return reason; },
    /** The sampling interval in bytes while sampling, else null. */
    get interval() { return sampling ? current : null; },
    /** True when the profiler is someone else's (a debugger, the app): no other way may take it. */
    get heldElsewhere() { return heldElsewhere; },
    /** The retained allocations by site now (start sampling first if needed); null when unavailable. */
    async sample() {
      if (!(await open())) return null;
      const mine = run;
      try {
        if (!sampling) {
          starting ??= begin().finally(() => { starting = null; });
          await starting;
          if (!sampling) return null; // stopped meanwhile
        }
        const { profile } = await post('HeapProfiler.getSamplingProfile');
        return flatten(profile.head);
      } catch (err) {
        if (mine !== run) return null; // stopped meanwhile: the session closed under the request
        // Someone else (the app's own session) stopped or holds the profiler: give up for good.
        reason = `the heap profiler is in use elsewhere: ${err?.message ?? err}`;
        heldElsewhere = true;
        self.stop();
        return null;
      }
    },
    /** Stop sampling and free its memory; the session closes too, so nothing holds the worker. */
    stop() {
      run++;
      if (!session) return;
      if (sampling || starting) {
        keepTickShapes();
        session.post('HeapProfiler.stopSampling', () => {});
      }
      if (inliningOff) {
        setInlining(true, send);
        inliningOff = false;
      }
      sampling = false;
      session.disconnect();
      session = null;
    },
  };
  return self;
}
