// What the check keeps of a running supervisor, heard on its event stream and never asked of its
// parts: the events a verdict reads, the last tick's judgements, the requests each worker
// answered, when each worker last had a confirmation point taken, and when every worker was
// first ready, or why one could not be.
import { EVENTS } from '../constants.js';

// The events a verdict or the report reads; the rest (samples, advice) is not kept.
const KEPT = new Set([
  EVENTS.WORKER_SPAWN, EVENTS.WORKER_READY, EVENTS.WORKER_EXIT, EVENTS.WORKER_RECYCLE, EVENTS.LEAK_WARNING,
  EVENTS.LIMIT_BELOW_BASELINE, EVENTS.RECYCLE_FAILED, EVENTS.WORKER_RETAINERS,
]);
// A worker that misses its readyTimeout is killed by the supervisor (primary/lifecycle/starts.js);
// this is only a net under that, should its exit never come.
const READY_NET_MS = 15_000;

/**
 * @param {{workers:number, readyTimeoutMs:number, now?:() => number}} o
 */
export function newCollector({ workers, readyTimeoutMs, now = Date.now }) {
  const events = [];
  const requests = new Map();
  const pids = new Set();
  const readySlots = new Set();
  let judgements = null;
  /** by worker id: its confirmation point count, and when that count last moved */
  const points = new Map();
  let settle;
  /** {ok:true} once every slot has had a ready worker, or {ok:false, exit} at the first exit before that */
  const ready = new Promise((resolve) => { settle = resolve; });
  let readyDone = false;
  const finish = (r) => { if (!readyDone) { readyDone = true; clearTimeout(net); settle(r); } };
  // Re-armed at each worker ready: a start-up's deadline moves by the time it queued for a CPU,
  // and workers starting on few cores become ready one after another, not all within one timeout.
  const arm = () => setTimeout(() => finish({ ok: false, exit: null }), readyTimeoutMs + READY_NET_MS).unref();
  let net = arm();
  let stopping = null;
  const stopped = new Promise((resolve) => { stopping = resolve; });

  const onEvent = (fields, { time }) => {
    if (!KEPT.has(fields.event)) return;
    events.push({ ...fields, time });
    if (fields.event === EVENTS.WORKER_SPAWN) pids.add(fields.pid);
    if (fields.event === EVENTS.WORKER_READY) {
      readySlots.add(fields.slot);
      if (readySlots.size >= workers) finish({ ok: true });
      else if (!readyDone) { clearTimeout(net); net = arm(); }
    }
    if (fields.event === EVENTS.WORKER_EXIT) finish({ ok: false, exit: fields });
  };
  // When a worker last had a confirmation point taken: points a spacing apart are a confirmation
  // under way, the supervisor still deciding.
  const pointAt = (j) => {
    const seen = points.get(j.id);
    if (!seen || seen.n !== j.points) points.set(j.id, { n: j.points, at: seen || j.points > 0 ? now() : null });
    return points.get(j.id).at;
  };
  const onSample = (x) => {
    if (typeof x.sample?.requests === 'number') requests.set(x.id, Math.max(requests.get(x.id) ?? 0, x.sample.requests));
  };
  return {
    ready,
    /** Settles when the supervisor begins to stop, whoever asked. */
    stopped,
    listen(emitter) {
      emitter.on('event', onEvent);
      emitter.on('sample', onSample);
      emitter.on('judged', (list) => { judgements = list.map((j) => ({ ...j, pointAt: pointAt(j) })); });
      emitter.once('stopping', () => stopping(now()));
    },
    events: () => events,
    judgements: () => judgements,
    requests: () => (requests.size ? [...requests.values()].reduce((a, b) => a + b, 0) : null),
    workerPids: () => [...pids],
  };
}
