// Shared shapes, as JSDoc typedefs only. Unknown is null, never 0: a probe that failed must not
// look like a healthy worker (PM2 records memory 0 when its probe fails).
export {};

/**
 * Normalised configuration: sizes in bytes, durations in ms, rates in bytes/s.
 * @typedef {object} Config
 * @property {string} name
 * @property {string} script            absolute path
 * @property {string[]} args
 * @property {Record<string,string>} env
 * @property {string[]} nodeArgs
 * @property {number} workers
 * @property {number} pollInterval      ms
 * @property {Limits} limits
 * @property {LeakConfig|false} leak
 * @property {boolean} gcBeforeRecycle
 * @property {{readyTimeout:number, killTimeout:number, maxConcurrent:number, predictive:boolean}} recycle
 * @property {{initialDelay:number, maxDelay:number, maxCrashes:number, crashWindow:number}} restart
 * @property {{timeout:number}} unresponsive
 * @property {{host:string, port:number}|false} metrics
 * @property {{level:string, format:'json'|'pretty'}} log
 * @property {{dir:string|null, snapshots:boolean, snapshotTimeout:number, keepSnapshots:boolean}} diagnose  where leak evidence (pprof profiles,
 *   drained workers' heap snapshots) is written, null: under the OS temp dir; whether a worker recycled for memory writes a snapshot, how long it may take, whether it is kept
 * @property {boolean} tui
 * @property {'round-robin'|'sticky'} balance  who spreads connections: cluster, or the primary by client (null in the schema: decided at load)
 * @property {{dependency:string, packageJson:string}|null} balanceFrom  why 'sticky' was decided where the config left balance unset (config/realtime-default.js)
 * @property {string|null} stickyHeader  lower-case header naming the client for balance 'sticky'
 * @property {string|null} configFile   absolute path, or null when none was used
 */

/**
 * @typedef {object} Limits
 * @property {number|null} rss          bytes, whole process tree
 * @property {number|null} heapUsed     bytes
 * @property {number|null} native       bytes: rss − heapTotal − external
 * @property {{bytes:number}|{fraction:number}|null} totalRss  all workers together
 * @property {number|null} maxAge       ms
 * @property {number|null} maxRequests
 * @property {number} jitter            0..1
 * @property {number} sustain           ms a memory limit must be exceeded before it counts (0: at once)
 */

/**
 * @typedef {object} LeakConfig
 * @property {number} window            ms
 * @property {number} minGrowth         bytes/s
 * @property {'recycle'|'warn'} action
 * @property {number} warmUp            ms after ready a rise may be a warm-up: no heap, external or children leak is named
 */

/**
 * One poll of one worker: its fields are defined once, in src/sample/fields.js.
 * @typedef {import('./sample/fields.js').Sample} Sample
 */

/**
 * A decision that a worker must go.
 * @typedef {object} Verdict
 * @property {number} slot
 * @property {string} reason            one of REASONS
 * @property {number|null} value        the measured value that crossed
 * @property {number|null} limit
 * @property {string} [detail]
 */

/**
 * What the status view, `status --json` and the metrics read.
 * @typedef {object} Snapshot
 * @property {string} name
 * @property {number} pid               the primary's
 * @property {number} startedAt         ms
 * @property {number} now               ms
 * @property {Limits} limits
 * @property {{limit:number|null, current:number|null}} cgroup
 * @property {SlotView[]} slots
 * @property {object[]} recentRecycles  the last worker.recycle events
 * @property {{recycles:Record<string,number>, restarts:number}} counters
 * @property {{stepMs:number}|null} trail  what each row's history spans: the slot's rss across its workers, one value a stepMs
 */

/**
 * @typedef {object} SlotView
 * @property {number} slot
 * @property {number|null} pid
 * @property {string} state             one of STATES
 * @property {number|null} startedAt
 * @property {Sample|null} last
 * @property {(number|null)[]} history  the slot's rss across its workers (Snapshot.trail), oldest first (sparkline)
 * @property {{rssPerSec:number|null, heapPerSec:number|null}} trend
 * @property {number} recycles
 * @property {number} restarts
 */
