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
 * @property {{readyTimeout:number, killTimeout:number, maxConcurrent:number}} recycle
 * @property {{initialDelay:number, maxDelay:number, maxCrashes:number, crashWindow:number}} restart
 * @property {{timeout:number}} unresponsive
 * @property {{host:string, port:number}|false} metrics
 * @property {{level:string, format:'json'|'pretty'}} log
 * @property {boolean} tui
 * @property {'round-robin'|'sticky'} balance  who spreads connections: cluster, or the primary by client
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
 */

/**
 * One poll of one worker. Every number may be null (not measured / probe failed).
 * @typedef {object} Sample
 * @property {number} t                 ms timestamp (primary clock)
 * @property {number} pid
 * @property {number|null} rss          the worker process alone
 * @property {number|null} pss
 * @property {number|null} anon         anonymous RSS
 * @property {number|null} treeRss      worker + all descendants
 * @property {number|null} treePss
 * @property {number|null} childrenRss  descendants only
 * @property {number|null} children     descendant count
 * @property {number|null} fds
 * @property {number|null} heapUsed
 * @property {number|null} heapTotal
 * @property {number|null} heapLimit
 * @property {number|null} heapFloor  lowest heapUsed since the previous poll, read just after GCs
 * @property {number|null} heapPhysical  V8's committed-and-touched heap (≤ heapTotal)
 * @property {number|null} external
 * @property {number|null} arrayBuffers
 * @property {number|null} native       rss − heapTotal − external
 * @property {number|null} newSpace     new space capacity, bytes
 * @property {number|null} gcCount      cumulative
 * @property {number|null} gcMs         cumulative GC pause time
 * @property {number|null} majorGcCount cumulative
 * @property {number|null} elu          event-loop utilization since the previous sample, 0..1
 * @property {number|null} delayP50     ms
 * @property {number|null} delayP99     ms
 * @property {number|null} requests     cumulative requests served
 * @property {number|null} handles      active handles/resources
 * @property {Record<string, number>|null} [fdKinds]  fds by what they are (core/sites/fd-kinds.js), when the agent read them
 * @property {Record<string, number>|null} [childCommands]  children by command line, on the agent's full reads
 * @property {boolean} agent            whether the agent answered this poll
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
