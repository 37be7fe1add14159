// Every start of a worker, told on the event stream (worker.spawn, worker.ready), and the start-up
// of a first start or a restart held to readyTimeout: one that never becomes ready is killed, and
// its exit is a crash like any other. A replacement's start-up is the recycler's to judge.
import { EVENTS, SPAWN_CAUSES, STATES } from '../../constants.js';

/**
 * @param {object} o
 * @param {import('./pool.js').Pool} o.pool
 * @param {import('../recycle/recycler.js').Recycler} o.recycler  kills a start that is not ready in time
 * @param {(level:string, fields:object) => void} o.report
 * @param {() => number} o.readyTimeout  read at each start (a reload may change it)
 * @param {() => boolean} o.isStopping
 */
export function watchStarts({ pool, recycler, report, readyTimeout, isStopping }) {
  pool.on('spawn', (rec, cause) => {
    // Which code it runs, by real path: through a `current` symlink, the release it names now; and
    // whether that is the code that serves rather than the configured script (after a failed reload).
    report('info', { event: EVENTS.WORKER_SPAWN, slot: rec.slot, pid: rec.pid, cause, script: rec.script, ...(rec.pinned ? { pinned: true } : {}) });
    if (cause === SPAWN_CAUSES.REPLACE) return;
    pool.whenReady(rec, readyTimeout()).then((ok) => {
      if (!ok && rec.state === STATES.SPAWNING && !isStopping()) recycler.forceKill(rec, { notReady: true });
    });
  });
  pool.on('ready', (rec) => {
    report('info', { event: EVENTS.WORKER_READY, slot: rec.slot, pid: rec.pid, startupMs: rec.readyAt - rec.startedAt });
  });
}
