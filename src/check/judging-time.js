// How long a run must last before each kind of leak could have been named, from the config: what
// "too short to judge" is measured against. The check judges nothing itself (only the policy
// reaches the detectors: test/architecture), so the detectors' own timings are restated here, and
// test/check/judging-time.test.js holds them to the core's numbers.
import { LEAK_KINDS } from '../constants.js';

/** The detectors' timings and bars that bound how soon a verdict can come (core/leak/heap-confirm.js, leak-detector.js, handle-trend.js). */
export const DETECTORS = Object.freeze({
  suspectMinMs: 15_000, // CONFIRM.suspectMinMs: rising polls before a heap suspicion
  spacingMs: 20_000, // CONFIRM.spacingMs: between two confirmation points
  points: 4, // CONFIRM.points: points a heap or external verdict needs
  handleWindowMs: 30_000, // HANDLE_THRESHOLDS.windowMs: how long handles must climb
  childrenWindowMs: 90_000, // CHILDREN_THRESHOLDS.windowMs: how long the process count must climb
  windowWarmup: 1, // LEAK_THRESHOLDS.warmup: leak windows after ready that a window verdict does not judge
  settleMs: 5 * 60_000, // LEAK_THRESHOLDS.settleMs: native memory is not named before this age
  warmUpMs: 150_000, // leak.warmUp's default: a rise from boot is not named before this long after ready
  suspect: 0.5, // CONFIRM.suspect: × leak.minGrowth, the post-GC heap's rise that starts a confirmation
});

// A confirmation point falls every spacing, so one that lands just after the warm-up hold has
// passed names the leak up to a spacing and a half later: the "three minutes" of the defaults.
const MARGIN_MS = 30_000;

const T = DETECTORS;

/** A confirmation's length once it has begun: its points, a spacing apart, and one more spacing. */
export const CONFIRMATION_MS = DETECTORS.points * DETECTORS.spacingMs;

/**
 * Seconds after ready by which each kind of leak present from boot would have been named.
 * heap and external by a confirmation, children by their climb, both after the warm-up hold;
 * handles by their climb (not held); native memory and unexplained RSS by the leak window's
 * verdict, (warmup + 1) × leak.window, and not before their settle time.
 * @param {{leak: false|{window:number, warmUp?:number}, pollInterval:number}} config
 * @returns {Record<string, number>|null}  null when leak detection is off
 */
export function judgingTimes(config) {
  if (!config.leak) return null;
  const warmUp = config.leak.warmUp ?? T.warmUpMs;
  const confirmation = T.suspectMinMs + (T.points - 1) * T.spacingMs + 2 * config.pollInterval;
  const early = Math.max(warmUp, confirmation) + MARGIN_MS;
  const windowed = (T.windowWarmup + 1) * config.leak.window;
  const s = (ms) => Math.ceil(ms / 10_000) * 10; // whole tens of seconds: a duration a person types
  return {
    [LEAK_KINDS.HEAP]: s(early),
    [LEAK_KINDS.EXTERNAL]: s(early),
    [LEAK_KINDS.HANDLES]: s(T.handleWindowMs + 2 * config.pollInterval + MARGIN_MS),
    [LEAK_KINDS.CHILDREN]: s(Math.max(warmUp, T.childrenWindowMs + 2 * config.pollInterval) + MARGIN_MS),
    [LEAK_KINDS.NATIVE]: s(Math.max(windowed, T.settleMs)),
    [LEAK_KINDS.RSS]: s(Math.max(windowed, T.settleMs)),
  };
}

/** The kinds a check reports on, in the order its report and JUnit cases list them. */
export const CHECKED_KINDS = Object.freeze([LEAK_KINDS.HEAP, LEAK_KINDS.EXTERNAL, LEAK_KINDS.HANDLES, LEAK_KINDS.NATIVE, LEAK_KINDS.CHILDREN, LEAK_KINDS.RSS]);

/** The kinds named before a leak window has passed: a run shorter than their time judged nothing. */
export const EARLY_KINDS = Object.freeze([LEAK_KINDS.HEAP, LEAK_KINDS.EXTERNAL, LEAK_KINDS.HANDLES, LEAK_KINDS.CHILDREN]);
