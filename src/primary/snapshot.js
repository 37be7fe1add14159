// Builds the Snapshot that the status view, `status --json` and the metrics read. Called on
// demand (a scrape, a status request), never from the poll tick.
import { STATES } from '../constants.js';
import { readCgroupMemoryCurrent } from '../proc/cgroup.js';
import { workerTrend } from '../core/forecast/worker-trend.js';

const HISTORY_POINTS = 60;
// The fleet view's sparkline: the slot's rss across its workers, the max of each 5 s.
export const TRAIL = Object.freeze({ points: 60, rangeMs: 5 * 60_000, series: ['rss'], events: false });

/**
 * @param {object} o
 * @param {import('../types.js').Config} o.config
 * @param {{slot:number, current:any}[]} o.slots
 * @param {import('./lifecycle/pool.js').WorkerHandle[]} o.handles  every live worker
 * @param {number} o.now @param {number} o.startedAt
 * @param {number|null} o.totalLimit @param {number|null} o.cgroupLimit
 * @param {ReturnType<import('../report/history/history.js').createHistory>} o.history
 * @param {import('../core/duration-ring.js').DurationRing} o.pollStats
 * @param {boolean} o.stopping
 * @param {ReturnType<import('../report/history/slot-history.js').createSlotHistory>} [o.slotHistory]
 * @param {(h:object) => object|null} [o.leakOf]  the latest leak named in a worker: kind, rate, sites or types
 * @returns {import('../types.js').Snapshot}
 */
export function buildSnapshot({ config, slots, handles, now, startedAt, totalLimit, cgroupLimit, history, pollStats, stopping, leakOf = () => null, slotHistory = null }) {
  const rows = [];
  for (const s of slots) {
    const mine = handles.filter((h) => h.slot === s.slot).sort((a, b) => a.startedAt - b.startedAt);
    const counts = history.slot(s.slot);
    if (!mine.length) rows.push(emptyRow(s, counts));
    for (const h of mine) rows.push({ ...row(s, h, now, config, counts), leak: leakOf(h) });
    const trail = slotHistory?.range(s.slot, { now, ...TRAIL })?.rss;
    if (trail) for (const r of rows) if (r.slot === s.slot) r.history = trail;
  }
  return {
    name: config.name,
    pid: process.pid,
    startedAt,
    now,
    script: config.script,
    workers: config.workers,
    pollInterval: config.pollInterval,
    limits: config.limits,
    // The active config, as a reload left it; env values stay private (they may be secrets).
    config: { ...config, env: Object.keys(config.env ?? {}) },
    totalRssLimit: totalLimit,
    cgroup: { limit: cgroupLimit, current: readCgroupMemoryCurrent() },
    slots: rows,
    recentRecycles: history.recentRecycles(10),
    counters: history.counters(),
    stopping,
    // Wall time of a poll tick, from the requests sent to the last reply: the primary's own cost.
    poll: pollStats.summary(),
    // What each row's `history` spans: the slot's trail (across recycles) when kept, else the worker's window.
    trail: slotHistory ? { stepMs: TRAIL.rangeMs / TRAIL.points } : null,
  };
}

function row(s, h, now, config, counts) {
  const last = h.window.last();
  const history = [];
  const samples = h.window.samples;
  for (let i = Math.max(0, samples.length - HISTORY_POINTS); i < samples.length; i++) history.push(samples[i].treeRss ?? samples[i].rss);
  return {
    slot: s.slot,
    pid: h.pid,
    state: h.state,
    current: s.current === h,
    startedAt: h.startedAt,
    readyAt: h.readyAt,
    uptimeMs: now - h.startedAt,
    last,
    history,
    trend: workerTrend(h, config, now),
    recycles: counts.recycles,
    restarts: counts.restarts,
    retiring: h.retiring,
  };
}

function emptyRow(s, counts) {
  return {
    slot: s.slot, pid: null, state: STATES.EXITED, current: null, startedAt: null, readyAt: null, uptimeMs: null,
    last: null, history: [], trend: { rssPerSec: null, heapPerSec: null }, recycles: counts.recycles, restarts: counts.restarts, retiring: null, leak: null,
  };
}
