// Builds the Snapshot that the status view, `status --json` and the metrics read. Called on
// demand (a scrape, a status request), never from the poll tick.
import { STATES } from '../constants.js';
import { readCgroupMemoryCurrent } from '../proc/cgroup.js';
import { workerTrend } from '../core/worker-trend.js';

const HISTORY_POINTS = 60;

/**
 * @param {object} o
 * @param {import('../types.js').Config} o.config
 * @param {{slot:number, current:any}[]} o.slots
 * @param {import('./pool.js').WorkerHandle[]} o.handles  every live worker
 * @param {number} o.now @param {number} o.startedAt
 * @param {number|null} o.totalLimit @param {number|null} o.cgroupLimit
 * @param {ReturnType<import('../report/history.js').createHistory>} o.history
 * @param {import('../core/duration-ring.js').DurationRing} o.pollStats
 * @param {boolean} o.stopping
 * @param {(h:object) => object|null} [o.leakOf]  the latest leak named in a worker: kind, rate, sites or types
 * @returns {import('../types.js').Snapshot}
 */
export function buildSnapshot({ config, slots, handles, now, startedAt, totalLimit, cgroupLimit, history, pollStats, stopping, leakOf = () => null }) {
  const rows = [];
  for (const s of slots) {
    const mine = handles.filter((h) => h.slot === s.slot).sort((a, b) => a.startedAt - b.startedAt);
    const counts = history.slot(s.slot);
    if (!mine.length) rows.push(emptyRow(s, counts));
    for (const h of mine) rows.push({ ...row(s, h, now, config, counts), leak: leakOf(h) });
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
