// The report side's own picture of the supervisor: what `status`, the status view and the metrics
// read. It is fed, never asks: the workers' records announce their changes and samples, and the
// tick announces its judgements on the event stream. A scrape or a status request reads what is
// here and calls nothing in the decision core and nothing up in the supervisor, so every reader
// shows the numbers the tick decided on, at the tick that decided them.
import { EVENTS, STATES } from '../constants.js';
import { DurationRing } from './duration-ring.js';
import { readCgroupMemoryCurrent } from '../proc/cgroup.js';
import { memoryOf } from '../sample/memory-of.js';
import { withSummary } from './resource-words.js';

// Points of a worker's memory kept for its sparkline when the slot history is off.
const HISTORY_POINTS = 60;
// The fleet view's sparkline: the slot's rss across its workers, the max of each 5 s.
export const TRAIL = Object.freeze({ points: 60, rangeMs: 5 * 60_000, series: ['rss'], events: false });
// The recent ticks only: a summary over start-up would say little about steady cost.
const POLL_TICKS = 120;

/**
 * @typedef {object} WorkerView  a worker's record as its owner announced it
 * @property {number} id @property {number} slot @property {number|null} pid @property {string} state
 * @property {number} startedAt @property {number|null} readyAt
 * @property {{reason:string, decidedAt:number}|null} retiring @property {boolean} current
 */

/**
 * @param {object} o
 * @param {import('node:events').EventEmitter} o.workers  'changed' (WorkerView) and 'sample' ({id, sample})
 * @param {import('node:events').EventEmitter} o.events  the supervisor's stream: 'judged', 'poll', 'settings'
 * @param {ReturnType<import('./history/history.js').createHistory>} o.history
 * @param {ReturnType<import('./history/slot-history.js').createSlotHistory>|null} [o.slotHistory]
 * @param {{name:string, startedAt:number, pid?:number}} o.run
 * @param {() => number} [o.now]
 */
export function createReadModel({ workers, events, history, slotHistory = null, run, now = Date.now }) {
  /** @type {Map<number, {view: WorkerView, last: object|null, memory: number[], judged: object|null, leak: object|null}>} */
  const byId = new Map();
  const poll = new DurationRing(POLL_TICKS);
  let settings = { config: null, totalLimit: null, cgroupLimit: null };
  let stopping = false;

  const entry = (id) => byId.get(id);
  const onChanged = (view) => {
    if (view.state === STATES.EXITED) byId.delete(view.id);
    else if (byId.has(view.id)) byId.get(view.id).view = view;
    else byId.set(view.id, { view, last: null, memory: [], judged: null, leak: null, points: 0, profiler: null });
  };
  const onSample = ({ id, sample }) => {
    const e = entry(id);
    if (!e) return;
    e.last = sample;
    e.memory.push(memoryOf(sample));
    if (e.memory.length > HISTORY_POINTS) e.memory.shift();
  };
  const onJudged = (list) => {
    for (const j of list) {
      const e = entry(j.id);
      // A handles leak keeps its documented summary for status and inspect: the core gives the types alone.
      if (e) Object.assign(e, { judged: j.judged, leak: withSummary(j.leak), points: j.points, profiler: j.profiler });
    }
  };
  // What held each slot's leak, as the last drained worker's snapshot told (worker.retainers).
  /** @type {Map<number, {pid:number, at:number, held:object[]}>} */
  const retainers = new Map();
  const onEvent = (fields, { time } = {}) => {
    if (fields.event === EVENTS.WORKER_RETAINERS && fields.taken && fields.held?.length) retainers.set(fields.slot, { pid: fields.pid, at: time ?? now(), held: fields.held });
  };
  let pollGroup = null;
  const onPoll = ({ ms, group = null }) => { poll.record(ms); pollGroup = group; };
  const onSettings = (s) => { settings = { ...settings, ...s }; };
  const onStopping = () => { stopping = true; };
  const listeners = [[workers, 'changed', onChanged], [workers, 'sample', onSample], [events, 'judged', onJudged],
    [events, 'poll', onPoll], [events, 'settings', onSettings], [events, 'stopping', onStopping], [events, 'event', onEvent]];
  for (const [emitter, name, fn] of listeners) emitter.on(name, fn);

  return {
    /** The Snapshot: one row per slot, the slot's other live workers beside it. */
    snapshot(t = now()) {
      return buildSnapshot({ byId, settings, history, slotHistory, run, poll, pollGroup, stopping, retainers, now: t });
    },
    /** What held slot's leak in its last drained worker ({pid, at, held}), or null. */
    retainersOf(slot) {
      return retainers.get(slot) ?? null;
    },
    /** True while at least one worker serves its slot: what /readyz answers. */
    anyServing() {
      for (const e of byId.values()) if (e.view.current && e.view.state === STATES.READY) return true;
      return false;
    },
    /** What the tick last concluded of worker `id`: its judgement, known leak and sites' progress; null when unknown. */
    judgementOf(id) {
      const e = entry(id);
      return e ? { judged: e.judged, leak: e.leak, points: e.points, profiler: e.profiler } : null;
    },
    close() {
      for (const [emitter, name, fn] of listeners) emitter.off(name, fn);
    },
  };
}

function buildSnapshot({ byId, settings, history, slotHistory, run, poll, pollGroup, stopping, retainers, now }) {
  const { config, totalLimit, cgroupLimit } = settings;
  const slots = config?.workers ?? 0;
  const bySlot = Array.from({ length: slots }, () => []);
  for (const e of byId.values()) bySlot[e.view.slot]?.push(e);
  const rows = bySlot.map((list, slot) => ({ ...slotRow(slot, list, now, history.slot(slot), slotHistory), retainers: retainers.get(slot) ?? null }));
  return {
    name: run.name,
    pid: run.pid ?? process.pid,
    startedAt: run.startedAt,
    now,
    script: config?.script ?? null,
    workers: slots,
    pollInterval: config?.pollInterval ?? null,
    limits: config?.limits ?? null,
    // The active config, as a reload left it; env values stay private (they may be secrets).
    config: config ? { ...config, env: Object.keys(config.env ?? {}) } : null,
    totalRssLimit: totalLimit,
    cgroup: { limit: cgroupLimit, current: readCgroupMemoryCurrent() },
    slots: rows,
    recentRecycles: history.recentRecycles(10),
    counters: history.counters(),
    stopping,
    // Wall time of a poll tick, from the requests sent to the last reply: the primary's own cost;
    // group: how many slots a tick polls at most now (the size follows these times).
    poll: { ...poll.summary(), group: pollGroup },
    // What each row's `history` spans: the slot's trail (across recycles) when kept, else the worker's memory.
    trail: slotHistory ? { stepMs: TRAIL.rangeMs / TRAIL.points } : null,
  };
}

// The row shows the worker serving the slot, else its newest; a replacement starting or an old
// worker draining rides along in `others`, so a slot is one row however its recycle stands.
function slotRow(slot, list, now, counts, slotHistory) {
  list.sort((a, b) => a.view.startedAt - b.view.startedAt);
  const main = list.find((e) => e.view.current) ?? list.at(-1);
  const trail = slotHistory?.range(slot, { now, ...TRAIL })?.rss ?? null;
  if (!main) return { ...emptyRow(slot, counts), ...(trail ? { history: trail } : {}) };
  return {
    ...workerRow(main, now),
    history: trail ?? [...main.memory],
    trend: main.judged?.trend ?? { rssPerSec: null, heapPerSec: null, rssLimitInSec: null },
    leak: main.leak,
    advice: main.judged?.advice ?? [],
    gcShareLastMinute: main.judged?.gcShareLastMinute ?? null,
    judgedAt: main.judged?.at ?? null,
    recycles: counts.recycles,
    restarts: counts.restarts,
    others: list.filter((e) => e !== main).map((e) => workerRow(e, now)),
  };
}

function workerRow({ view, last }, now) {
  return {
    slot: view.slot, pid: view.pid, state: view.state, current: view.current, startedAt: view.startedAt, readyAt: view.readyAt,
    uptimeMs: now - view.startedAt, last, retiring: view.retiring,
  };
}

function emptyRow(slot, counts) {
  return {
    slot, pid: null, state: STATES.EXITED, current: null, startedAt: null, readyAt: null, uptimeMs: null,
    last: null, history: [], trend: { rssPerSec: null, heapPerSec: null, rssLimitInSec: null }, leak: null, advice: [],
    gcShareLastMinute: null, judgedAt: null, recycles: counts.recycles, restarts: counts.restarts, retiring: null, others: [],
  };
}
