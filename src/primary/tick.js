// One poll tick: collect → decide → act → report.
//   collect  the poller samples every live worker into its window
//   decide   the pure core judges the serving workers: verdicts and notices, and its own next state
//   act      the recycler starts the recycles there is room for
//   report   the notices go out on the event stream, where the log and metrics listen
// The tick owns nothing: the policy state goes in and comes back out.
// Past POLL_GROUP workers a tick polls one group of slots, and the groups take turns across the
// poll interval: every worker is still sampled once an interval, but a tick waits on at most
// POLL_GROUP replies. An idle process costs this host's CPU about 2 ms to wake; 128 woken at once
// queue behind each other on two cores for well over 100 ms, and a tick waiting on all of them
// took 1.5 s at its p99.
import { STATES } from '../constants.js';
import { decide } from '../core/decide.js';
import { planRecycles } from '../core/recycle-plan.js';
import { pollOnce } from './poller.js';

/**
 * @param {object} o
 * @param {import('./pool.js').Pool} o.pool
 * @param {{slot:number, current:any, cooldownUntil:number}[]} o.slots
 * @param {import('./recycler.js').Recycler} o.recycler
 * @param {import('./heap-prober.js').HeapProber} [o.prober]  takes the confirmation points the decision asks for
 * @param {import('../types.js').Config} o.config
 * @param {import('../core/decide.js').PolicyState} o.policy
 * @param {number|null} o.totalLimit  @param {number|null} o.cgroupLimit
 * @param {number|null} [o.startupMs]  the app's recent startup time, for predictive replacement
 * @param {() => number} o.now
 * @param {(level:string, fields:object, msg?:string) => void} o.report
 * @param {() => boolean} o.isStopping
 * @param {import('node:events').EventEmitter} [o.events]  hears 'sample' ({slot, pid, sample}) for each new sample
 * @param {{index:number, of:number}} [o.group]  the group of slots this tick polls (slot % of === index)
 * @returns {Promise<{policy: import('../core/decide.js').PolicyState, pollMs: number|null}>}
 */
export async function runTick(o) {
  const { pool, config, now, group = { index: 0, of: 1 } } = o;
  const handles = pool.handles().filter((h) => h.state !== STATES.EXITED && h.slot % group.of === group.index);
  if (!handles.length) return { policy: o.policy, pollMs: null };
  const t0 = performance.now();
  const before = o.events ? handles.map((h) => h.window.last()) : null;
  await pollOnce(pool, handles, { timeoutMs: Math.max(200, Math.min(config.pollInterval, 5000)), now });
  const pollMs = performance.now() - t0;
  // The slot history (report/slot-history.js) keeps each new sample of the slot's serving worker.
  handles.forEach((h, i) => { const s = h.window.last(); if (before && s && s !== before[i] && o.slots[h.slot]?.current === h) o.events.emit('sample', { slot: h.slot, pid: h.pid, sample: s }); });
  if (o.isStopping()) return { policy: o.policy, pollMs };

  const t = now();
  const { state, verdicts, notices, probes } = decide(o.policy, servingWorkers(o.slots, t, o.recycler, o.prober), t, {
    config, totalLimit: o.totalLimit, cgroupLimit: o.cgroupLimit, startupMs: o.startupMs ?? null,
    only: group.of > 1 ? new Set(handles.map((h) => h.pid)) : null,
  });

  for (const v of planRecycles(verdicts, o.recycler.busy, config.recycle.maxConcurrent, o.recycler.waiting)) {
    o.recycler.recycle(v.slot, v).catch((err) => o.report('error', { err, slot: v.slot }, 'recycle failed'));
  }
  for (const p of probes ?? []) {
    const h = o.slots[p.slot]?.current;
    if (h?.pid === p.pid) o.prober?.probe(h, p).catch((err) => o.report('error', { err, slot: p.slot }, 'heap probe failed'));
  }
  for (const n of notices) o.report(n.level, n.fields, n.msg);
  return { policy: state, pollMs };
}

export const POLL_GROUP = 16;

/** How many groups `slots` slots are polled in, one group a tick. */
export function pollGroups(slots) {
  return Math.max(1, Math.ceil(slots / POLL_GROUP));
}

/** The current, ready worker of each slot, as the decision sees it. */
export function servingWorkers(slots, now, recycler = null, prober = null) {
  const out = [];
  for (const s of slots) {
    const h = s.current;
    if (!h || h.state !== STATES.READY) continue;
    out.push({
      slot: s.slot, pid: h.pid, startedAt: h.startedAt, readyAt: h.readyAt, lastReplyAt: h.lastReplyAt,
      jitterDraw: h.jitterDraw, window: h.window, held: now < s.cooldownUntil, predictionMissedAt: recycler?.missedAt.get(h) ?? null,
      points: prober?.pointsOf(h) ?? [],
    });
  }
  return out;
}
