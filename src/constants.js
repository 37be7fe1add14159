// Closed vocabularies. A recycle reason, an event name or a worker state is spelled here once and
// used as-is in logs, metric labels, the status view and verdict objects.

/**
 * The name under which each worker starts with V8's gc() (--expose-gc-as), for the full GCs nodesup
 * forces; the agent takes it before the app runs (src/worker/full-gc.js).
 */
export const GC_GLOBAL = '__nodesupGc';

/** Worker lifecycle states (see core/worker-state.js for the transitions). */
export const STATES = Object.freeze({
  SPAWNING: 'spawning',
  READY: 'ready',
  DRAINING: 'draining',
  KILLING: 'killing',
  EXITED: 'exited',
});

/** Why a worker is recycled. */
export const REASONS = Object.freeze({
  RSS: 'rss',
  HEAP: 'heap',
  NATIVE: 'native',
  TOTAL_RSS: 'total-rss',
  LEAK: 'leak',
  MAX_AGE: 'max-age',
  MAX_REQUESTS: 'max-requests',
  UNRESPONSIVE: 'unresponsive',
  MANUAL: 'manual',
  RELOAD: 'reload',
});

/** Reasons that are about memory: a full GC may make them go away (docs/architecture.md, "The recycle", step 2). */
export const MEMORY_REASONS = new Set([REASONS.RSS, REASONS.HEAP, REASONS.NATIVE, REASONS.TOTAL_RSS]);

/** Why a worker leaves that is not a recycle: a stop, or a replacement that was not needed or not ready. */
export const RETIRE = Object.freeze({ STOP: 'stop', SPARE: 'spare' });

/** What a recycle came to: the result of the recycler, of `nodesup recycle` and of each slot of a reload. */
export const RECYCLE_OUTCOMES = Object.freeze({
  RECYCLED: 'recycled', // replaced: the replacement serves, the old worker drained
  GC: 'gc', // a full GC brought it under its limits: nothing replaced
  FAILED: 'failed', // the replacement was not ready within readyTimeout: the old worker keeps serving
  SKIPPED: 'skipped', // no ready worker in that slot, or it was recycling already, or a stop began
  SPARE: 'spare', // a predicted crossing did not come: the early replacement was retired, the old one stays
});

/** What leaks (docs/events.md, "Vocabularies"): the kind on leak.warning, a leak recycle, metrics and views. */
export const LEAK_KINDS = Object.freeze({
  HEAP: 'heap',
  EXTERNAL: 'external',
  NATIVE: 'native',
  CHILDREN: 'children',
  RSS: 'rss',
  HANDLES: 'handles',
});

/** Advice codes, spelled once: the `code` of each worker.advice event and what views match on. */
export const ADVICE = Object.freeze({
  NATIVE_GAP: 'native-gap',
  TINY_NEW_SPACE: 'tiny-new-space',
  GC_SHARE: 'gc-share',
  LOOP_DELAY: 'loop-delay', // the loop is late and its thread had the CPU: blocking code
  CPU_STARVATION: 'cpu-starvation', // the loop is late because its thread waited for a CPU
  GC_FLAGS: 'gc-flags', // flags that move GC work onto the main thread, named before any GC share shows it
  HEAP_NEAR_LIMIT: 'heap-near-limit',
  HEAP_LIMIT_ABOVE_RSS: 'heap-limit-above-rss',
  RSS_LIMIT_ABOVE_CGROUP: 'rss-limit-above-cgroup',
  FD_GROWTH: 'fd-growth',
  HANDLES: 'handles',
  OVERCOMMIT: 'overcommit', // the workers cannot all fit in the container's memory limit
  STICKY_SESSIONS: 'sticky-sessions', // engine.io long-polls over round-robin workers: HTTP 400 "Session ID unknown"
  OOM_KILL: 'oom-kill', // the kernel's OOM killer ended a worker
  OOM_GROUP: 'oom-group', // memory.oom.group is 1: one worker at the container's limit takes the whole pod
});

/** Config keys bound at start: a reload keeps their running values and says a restart is needed. */
export const RESTART_KEYS = Object.freeze(['name', 'metrics', 'log', 'tui', 'balance', 'stickyHeader', 'diagnose']);

/** Why a worker was spawned. */
export const SPAWN_CAUSES = Object.freeze({ INITIAL: 'initial', REPLACE: 'replace', RESTART: 'restart' });

/** Every supervisor log event (docs/events.md). */
export const EVENTS = Object.freeze({
  SUPERVISOR_START: 'supervisor.start',
  SUPERVISOR_STOP: 'supervisor.stop',
  WORKER_SPAWN: 'worker.spawn',
  WORKER_READY: 'worker.ready',
  WORKER_GC: 'worker.gc',
  WORKER_RECYCLE: 'worker.recycle',
  WORKER_EXIT: 'worker.exit',
  WORKER_RETAINERS: 'worker.retainers',
  WORKER_RESTART: 'worker.restart',
  LEAK_WARNING: 'leak.warning',
  // At debug: a suspicion checked with full GCs (and the sites' profiler), and its end.
  LEAK_SUSPECTED: 'leak.suspected',
  LEAK_CLEARED: 'leak.cleared',
  // Beyond the lifecycle above, each one a warning a user can grep for:
  LIMIT_BELOW_BASELINE: 'limit.below-baseline',
  RECYCLE_FAILED: 'recycle.failed',
  RECYCLE_SKIPPED: 'recycle.skipped',
  ADVICE: 'worker.advice',
  OUTPUT_DROPPED: 'output.dropped',
  CONFIG_RELOAD: 'config.reload',
  CONFIG_INVALID: 'config.invalid',
  CONFIG_DEFAULT: 'config.default', // a default decided at start from the container or the app (docs/events.md)
  RELOAD: 'reload', // a reload's outcome: every slot's result, and what failed
});

/**
 * What a reload came to (the `reload` event, `nodesup reload`, nodesup_reloads_total{result}):
 * every worker runs the new code, some do, or none does.
 */
export const RELOAD_RESULTS = Object.freeze({ OK: 'ok', PARTIAL: 'partial', FAILED: 'failed' });
