// Builds the Snapshot that the status view, `status --json` and the metrics read. Called on
// demand (a scrape, a status request), never from the poll tick.
import { STATES } from '../constants.js';
import { readCgroupMemoryCurrent } from '../config/cgroup.js';
import { workerTrend } from './leak-watch.js';

const HISTORY_POINTS = 60;

/** @param {import('./supervisor.js').Supervisor} sup @returns {import('../types.js').Snapshot} */
export function buildSnapshot(sup) {
  const now = sup.now();
  const rows = [];
  for (const s of sup.slots) {
    const handles = sup.pool.handles().filter((h) => h.slot === s.slot).sort((a, b) => a.startedAt - b.startedAt);
    if (!handles.length) rows.push(emptyRow(s));
    for (const h of handles) rows.push(row(s, h, now, sup.config));
  }
  return {
    name: sup.config.name,
    pid: process.pid,
    startedAt: sup.startedAt,
    now,
    script: sup.config.script,
    workers: sup.config.workers,
    pollInterval: sup.config.pollInterval,
    limits: sup.config.limits,
    totalRssLimit: sup.totalLimit,
    cgroup: { limit: sup.cgroup.memoryLimit, current: readCgroupMemoryCurrent() },
    slots: rows,
    recentRecycles: sup.recentRecycles.slice(-10),
    counters: { recycles: { ...sup.counters.recycles }, restarts: sup.counters.restarts },
    stopping: Boolean(sup.stopping),
    // Wall time of a poll tick, from the requests sent to the last reply: the primary's own cost.
    poll: sup.pollStats.summary(),
  };
}

function row(s, h, now, config) {
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
    recycles: s.recycles,
    restarts: s.restarts,
    retiring: h.retiring,
  };
}

function emptyRow(s) {
  return {
    slot: s.slot, pid: null, state: STATES.EXITED, current: null, startedAt: null, readyAt: null, uptimeMs: null,
    last: null, history: [], trend: { rssPerSec: null, heapPerSec: null }, recycles: s.recycles, restarts: s.restarts, retiring: null,
  };
}
