// Closed vocabularies. A recycle reason, an event name or a worker state is spelled here once and
// used as-is in logs, metric labels, the status view and verdict objects.

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

/** What a leak is named by: the part of the process tree that grows (DESIGN §3a). */
export const LEAK_KINDS = Object.freeze(['heap', 'external', 'native', 'children', 'rss', 'handles']);

/** Reasons that are about memory: a full GC may make them go away (DESIGN §4 step 2). */
export const MEMORY_REASONS = new Set([REASONS.RSS, REASONS.HEAP, REASONS.NATIVE, REASONS.TOTAL_RSS]);

/** Why a worker leaves that is not a recycle: a stop, or a replacement that was not needed or not ready. */
export const RETIRE = Object.freeze({ STOP: 'stop', SPARE: 'spare' });

/** Why a worker was spawned. */
export const SPAWN_CAUSES = Object.freeze({ INITIAL: 'initial', REPLACE: 'replace', RESTART: 'restart' });

/** Every supervisor log event (DESIGN §3). */
export const EVENTS = Object.freeze({
  SUPERVISOR_START: 'supervisor.start',
  SUPERVISOR_STOP: 'supervisor.stop',
  WORKER_SPAWN: 'worker.spawn',
  WORKER_READY: 'worker.ready',
  WORKER_GC: 'worker.gc',
  WORKER_RECYCLE: 'worker.recycle',
  WORKER_EXIT: 'worker.exit',
  WORKER_RESTART: 'worker.restart',
  LEAK_WARNING: 'leak.warning',
  // Beyond DESIGN's list, each one a warning a user can grep for:
  LIMIT_BELOW_BASELINE: 'limit.below-baseline',
  RECYCLE_FAILED: 'recycle.failed',
  RECYCLE_SKIPPED: 'recycle.skipped',
  ADVICE: 'worker.advice',
  OUTPUT_DROPPED: 'output.dropped',
  CONFIG_RELOAD: 'config.reload',
  CONFIG_INVALID: 'config.invalid',
});
