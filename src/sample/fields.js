// The Sample: one poll of one worker, written down once. Each field names where it comes from, its
// unit, how often it changes, and what it means; the agent builds its reply from the agent fields
// (src/worker/sample/reply.js), the poller fills the rest and copies these (src/primary/tick/poller.js),
// and the history and the metrics name the fields they keep from here. Unknown is null, never 0:
// a probe that failed must not look like a healthy worker.

/** Who measures a field. */
export const SOURCE = Object.freeze({
  AGENT: 'agent',     // the agent inside the worker, in its reply to a poll (or its hello)
  PROC: 'proc',       // the primary, from /proc (read by itself, or by the agent on its behalf) and what it derives from it
  PRIMARY: 'primary', // the poll's own bookkeeping: when, which worker, whether the agent answered
});

/** How often a field's value can change. */
export const CADENCE = Object.freeze({
  POLL: 'poll', // read at every poll
  ONCE: 'once', // constant for the process's life: the agent sends it once, in its hello
});

const { AGENT, PROC, PRIMARY } = SOURCE;
const { POLL, ONCE } = CADENCE;

// `only`: an agent field the reply carries on some polls alone ('full': the poll's periodic full
// read; 'new': once, when a reading made in the background has landed). Absent, it rides on every poll.
const field = (name, source, unit, meaning, { cadence = POLL, only = null } = {}) => Object.freeze({ name, source, unit, cadence, only, meaning });

/** Every field of a Sample, in the order a Sample lists them. */
export const FIELDS = Object.freeze([
  field('t', PRIMARY, 'ms', "when the poll's replies were in: ms since the epoch, on the primary's clock"),
  field('pid', PRIMARY, 'pid', 'the worker process'),
  field('rss', PROC, 'bytes', 'resident memory of the worker process alone'),
  field('pss', PROC, 'bytes', "the worker's proportional set size: measured on full reads, estimated from the last one in between"),
  field('anon', PROC, 'bytes', "the worker's anonymous resident memory, measured or estimated as pss is"),
  field('treeRss', PROC, 'bytes', "resident memory of the worker and all its descendants: a worker's memory (memoryOf)"),
  field('treePss', PROC, 'bytes', 'proportional set size of the worker and all its descendants'),
  field('childrenRss', PROC, 'bytes', "resident memory of the worker's descendants only"),
  field('children', PROC, 'count', 'descendant processes'),
  field('fds', PROC, 'count', 'open file descriptors of the worker process'),
  field('heapUsed', AGENT, 'bytes', 'V8 heap in use'),
  field('heapTotal', AGENT, 'bytes', 'V8 heap committed, pages reserved but never touched included'),
  field('heapLimit', AGENT, 'bytes', "V8's heap size limit", { cadence: ONCE }),
  field('heapPhysical', AGENT, 'bytes', "V8's committed and touched heap (≤ heapTotal): the part RSS holds"),
  field('heapFloor', AGENT, 'bytes', 'lowest heapUsed since the previous poll, read just after GCs, plus the threads\' heaps'),
  field('external', AGENT, 'bytes', 'memory of C++ objects bound to JS objects, arrayBuffers included'),
  field('arrayBuffers', AGENT, 'bytes', 'memory of ArrayBuffers and SharedArrayBuffers'),
  field('native', PROC, 'bytes', 'rss − heapPhysical (heapTotal when unknown) − external − threadsHeapPhysical: memory outside V8'),
  field('newSpace', AGENT, 'bytes', "capacity of V8's new space"),
  field('gcCount', AGENT, 'count', 'GCs since the worker started'),
  field('gcMs', AGENT, 'ms', 'GC pause time since the worker started'),
  field('majorGcCount', AGENT, 'count', 'full (mark-compact) GCs since the worker started'),
  field('minorGcCount', AGENT, 'count', 'scavenges since the worker started'),
  field('minorGcMs', AGENT, 'ms', 'scavenge time since the worker started'),
  field('gcFlags', AGENT, 'flags', 'flags in execArgv or NODE_OPTIONS that change how V8 collects', { cadence: ONCE }),
  field('elu', AGENT, 'share', 'event-loop utilization since the previous poll, 0..1'),
  field('delayP50', AGENT, 'ms', 'median event-loop delay since the previous poll'),
  field('delayP99', AGENT, 'ms', '99th percentile of event-loop delay since the previous poll'),
  field('delayMax', AGENT, 'ms', 'longest event-loop delay since the previous poll'),
  field('cpuWaitShare', AGENT, 'share', "share of wall time the loop's thread was runnable but waited for a CPU, since the previous poll"),
  field('requests', AGENT, 'count', 'HTTP requests served since the worker started'),
  field('handles', AGENT, 'count', 'active libuv handles and requests'),
  field('resources', AGENT, 'count by type', 'active resources by type ({TCPSocketWrap: 12, Timeout: 40})'),
  field('fdKinds', AGENT, 'count by kind', 'fds by what they are (src/proc/fds.js), read in the background while the worker has many', { only: 'new' }),
  field('childCommands', AGENT, 'count by command', "the worker's children by command line", { only: 'full' }),
  field('threads', AGENT, 'count', "the app's worker_threads"),
  field('threadsHeapUsed', AGENT, 'bytes', "V8 heap in use in the worker_threads' heaps together"),
  field('threadsHeapPhysical', AGENT, 'bytes', "the worker_threads' committed and touched heaps together"),
  field('agent', PRIMARY, 'boolean', 'whether the agent answered this poll'),
]);

/** Fields by name. */
export const FIELD = Object.freeze(Object.fromEntries(FIELDS.map((f) => [f.name, f])));

/** The fields the agent measures. */
export const AGENT_FIELDS = Object.freeze(FIELDS.filter((f) => f.source === AGENT));
/** What the agent says once, in its hello: the process's constants. */
export const AGENT_CONSTANTS = Object.freeze(AGENT_FIELDS.filter((f) => f.cadence === ONCE));
/** What the agent's reply to a poll carries of the Sample's own fields. */
export const AGENT_POLLED = Object.freeze(AGENT_FIELDS.filter((f) => f.cadence === POLL));

/**
 * What the agent's reply also carries: /proc read inside the worker, where the process is awake
 * anyway, so the one primary need not read it for every worker on every poll. The poller turns
 * these into the proc fields (rss, pss, anon, the tree's, fds), and falls back to its own reads.
 */
export const READINGS = Object.freeze([
  field('rss', AGENT, 'bytes', 'the worker\'s resident memory (statm)'),
  field('fds', AGENT, 'count', 'its open fds, the listing\'s own not counted'),
  field('childPids', AGENT, 'pids', "its main thread's children; on a full read, every thread's"),
  field('allThreads', AGENT, 'boolean', 'childPids lists every thread\'s children (a full read)'),
  field('memory', AGENT, 'bytes', 'its smaps_rollup: {rss, pss, anon}', { only: 'full' }),
]);

/** What the agent adds to its reply for `nodesup inspect`'s detailed read, beyond a poll's. */
export const DETAIL = Object.freeze([
  field('heapSpaces', AGENT, 'bytes', "V8's heap spaces: [{name, size, used, available}]"),
  field('heap', AGENT, 'bytes', "V8's heap statistics as v8.getHeapStatistics() gives them"),
  field('gcByKind', AGENT, 'count, ms', 'GCs so far by kind: {minor, major, incremental, weakcb: {count, ms}}'),
  field('execArgv', AGENT, 'flags', "the worker's execArgv"),
]);

// The typedef below is written from FIELDS by hand; test/sample/fields.test.js holds the two to each other.

/**
 * One poll of one worker (FIELDS above). Every measured value may be null: not measured, or the probe failed.
 * @typedef {object} Sample
 * @property {number} t                 ms since the epoch, primary clock
 * @property {number} pid
 * @property {number|null} rss          bytes, the worker process alone
 * @property {number|null} pss          bytes
 * @property {number|null} anon         bytes, anonymous RSS
 * @property {number|null} treeRss      bytes, worker + all descendants
 * @property {number|null} treePss      bytes
 * @property {number|null} childrenRss  bytes, descendants only
 * @property {number|null} children     descendant count
 * @property {number|null} fds
 * @property {number|null} heapUsed     bytes
 * @property {number|null} heapTotal    bytes
 * @property {number|null} heapLimit    bytes, constant (the agent's hello)
 * @property {number|null} heapPhysical bytes, V8's committed-and-touched heap (≤ heapTotal)
 * @property {number|null} heapFloor    bytes, lowest heapUsed since the previous poll (+ the threads' heaps)
 * @property {number|null} external     bytes
 * @property {number|null} arrayBuffers bytes
 * @property {number|null} native       bytes, rss − heapPhysical − external − threadsHeapPhysical
 * @property {number|null} newSpace     bytes, new space capacity
 * @property {number|null} gcCount      cumulative
 * @property {number|null} gcMs         ms, cumulative GC pause time
 * @property {number|null} majorGcCount cumulative
 * @property {number|null} minorGcCount cumulative
 * @property {number|null} minorGcMs    ms, cumulative
 * @property {string[]|null} gcFlags    constant (the agent's hello)
 * @property {number|null} elu          0..1, since the previous poll
 * @property {number|null} delayP50     ms
 * @property {number|null} delayP99     ms
 * @property {number|null} delayMax     ms
 * @property {number|null} cpuWaitShare 0..1, since the previous poll
 * @property {number|null} requests     cumulative
 * @property {number|null} handles
 * @property {Record<string, number>|null} resources      by type
 * @property {Record<string, number>|null} fdKinds        by kind, on the poll after the agent read them
 * @property {Record<string, number>|null} childCommands  by command line, on full reads
 * @property {number|null} threads
 * @property {number|null} threadsHeapUsed      bytes
 * @property {number|null} threadsHeapPhysical  bytes
 * @property {boolean} agent            whether the agent answered this poll
 */
