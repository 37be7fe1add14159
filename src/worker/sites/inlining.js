// Optimized code has small functions inlined into their callers, and the sampling heap profiler
// records the function V8 is executing: a leak in a three-line `cacheUser` is filed under the
// timer callback that called it (Node 20, 24 and 26, measured). While sites are sampled, V8's
// optimizers stop inlining, and the code optimized so far is thrown away so that what is optimized
// again keeps its callees as frames; when sampling ends, inlining comes back the same way.
// Throwing every optimized function away is what starting precise coverage does (V8 deoptimizes
// everything on entering it), so coverage is started and stopped at once. Coverage kept on for the
// whole window costs the same while sampling, but once stopped Node 20, 22 and 26 kept the code it
// had optimized without inlining, and a worker went on paying for its suspicion (bench/RESULTS.md,
// "What a stopped profiler leaves").
import v8 from 'node:v8';

// TurboFan's and Maglev's (Turbolev, on Node 26, inlines as Maglev does).
const FLAGS = ['turbo-inlining', 'maglev-inlining'];

/** The value the user gave a flag on the command line or in NODE_OPTIONS (the last one wins), or null. */
function userValue(flag) {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((f) => f.replace(/_/g, '-'));
  let value = null;
  for (const f of given) {
    if (f === `--${flag}`) value = true;
    else if (f === `--no-${flag}`) value = false;
  }
  return value;
}

/**
 * Turn inlining off (on: false) or back to what it was (on: true: on, unless the user turned it
 * off), and deoptimize everything so the change takes effect.
 * @param {boolean} on
 * @param {(method: string, params?: object) => void} send  a connected inspector session's post,
 *   its reply not awaited: an in-process session dispatches in order and at once, so the caller
 *   may disconnect right after
 */
export function setInlining(on, send) {
  v8.setFlagsFromString(FLAGS.map((f) => `--${on && userValue(f) !== false ? '' : 'no-'}${f}`).join(' '));
  send('Profiler.enable');
  send('Profiler.startPreciseCoverage', { callCount: false, detailed: false });
  send('Profiler.stopPreciseCoverage');
  send('Profiler.disable');
}
