// One poll tick: collect → decide → act → report.
//   collect  the poller samples every live worker into its window
//   decide   the pure core judges the serving workers: verdicts and notices, and its own next state
//   act      the recycler starts the recycles there is room for
//   report   the notices go out on the event stream, where the log and metrics listen
// The tick owns nothing: the policy state goes in (with what the act step learned since the last
// tick folded in) and comes back out.
// A tick polls one group of slots (slot % of === index); tick-loop.js says which, and when. In a
// large fleet a quiet worker of the group is asked every few polls (core/policy/quiet-poll.js).
import { STATES } from '../../constants.js';
import { decide } from '../../core/policy/decide.js';
import { planRecycles, memoryRoom } from '../../core/policy/recycle-plan.js';
import { MEMORY_REASONS } from '../../constants.js';
import { absorb } from '../../core/policy/outcomes.js';
import { pollOnce } from './poller.js';
import { isQuiet, pollDue } from '../../core/policy/quiet-poll.js';

/**
 * @param {object} o
 * @param {import('../lifecycle/pool.js').Pool} o.pool  the workers' records and who serves each slot
 * @param {import('../recycle/recycler.js').Recycler} o.recycler
 * @param {import('../recycle/heap-prober.js').HeapProber} [o.prober]  takes the confirmation points the decision asks for
 * @param {import('./inbox.js').Inbox} o.inbox  outcomes of the act step since the last tick
 * @param {import('../../types.js').Config} o.config
 * @param {import('../../core/policy/decide.js').PolicyState} o.policy
 * @param {number|null} o.totalLimit  @param {number|null} o.cgroupLimit
 * @param {() => number} o.now
 * @param {(level:string, fields:object, msg?:string) => void} o.report
 * @param {() => boolean} o.isStopping
 * @param {{index:number, of:number}} [o.group]  the group of slots this tick polls (slot % of === index)
 * @param {() => number|null} [o.headroom]  memory free for more workers now (bytes), read only when a memory verdict waits for room
 * @returns {Promise<{policy: import('../../core/policy/decide.js').PolicyState, pollMs: number|null, nextPollMs: number|null, judgements?: object[]}>}
 *   pollMs: how long this tick's poll took; nextPollMs: a sooner next tick, while a worker rises toward its limit;
 *   judgements: what the decision concluded of each serving worker, for the report side
 */
export async function runTick(o) {
  const { pool, config, now, group = { index: 0, of: 1 } } = o;
  const inGroup = pool.records().filter((rec) => rec.state !== STATES.EXITED && rec.slot % group.of === group.index);
  const handles = inGroup.filter((rec) => asked(pool, rec, o.policy, now(), config.pollInterval));
  if (!handles.length) return { policy: o.policy, pollMs: null, nextPollMs: null };
  const t0 = performance.now();
  await pollOnce(pool, handles, { timeoutMs: Math.max(200, Math.min(config.pollInterval, 5000)), now });
  const pollMs = performance.now() - t0;
  if (o.isStopping()) return { policy: o.policy, pollMs, nextPollMs: null };

  const t = now();
  const serving = servingWorkers(pool);
  const { state, verdicts, notices, probes, pollMs: nextPollMs, judgements } = decide(absorb(o.policy, o.inbox.take()), serving, t, {
    config, totalLimit: o.totalLimit, cgroupLimit: o.cgroupLimit,
    // The slowest of the last few: a forecast that allows too little time overshoots the limit.
    startupMs: pool.startupMs(),
    only: group.of > 1 || handles.length < inGroup.length ? new Set(handles.map((rec) => rec.id)) : null,
  });

  // The headroom is read (a file) only when a memory verdict may have to wait for the room.
  const room = o.headroom && verdicts.some((v) => MEMORY_REASONS.has(v.reason)) ? memoryRoom(o.headroom(), serving) : 0;
  for (const v of planRecycles(verdicts, o.recycler.busy, config.recycle.maxConcurrent, o.recycler.waiting, room)) {
    o.recycler.recycle(v.slot, v).catch((err) => o.report('error', { err, slot: v.slot }, 'recycle failed'));
  }
  for (const p of probes ?? []) {
    const rec = pool.currentOf(p.slot);
    if (rec?.id === p.id) o.prober?.probe(rec, p).catch((err) => o.report('error', { err, slot: p.slot }, 'heap probe failed'));
  }
  for (const n of notices) o.report(n.level, n.fields, n.msg);
  return { policy: state, pollMs, nextPollMs, judgements };
}

// Whether this tick asks rec for a sample: always, but for a serving worker that has been quiet
// in a large fleet, which is asked every few polls (core/policy/quiet-poll.js).
function asked(pool, rec, policy, at, pollInterval) {
  const o = { skipped: rec.quietSkips, slots: pool.slots.length };
  const { ask, skipped } = pollDue(o) ?? pollDue({ ...o, quiet: serving(pool, rec) && isQuiet(rec.window, policy.workers[rec.id]) });
  pool.noteQuiet(rec, skipped, at, pollInterval);
  return ask;
}

const serving = (pool, rec) => rec.state === STATES.READY && pool.currentOf(rec.slot) === rec;

/** The current, ready worker of each slot, as the decision sees it: a view of its record. */
export function servingWorkers(pool) {
  return pool.serving().map((rec) => ({
    id: rec.id, slot: rec.slot, pid: rec.pid, startedAt: rec.startedAt, readyAt: rec.readyAt, lastReplyAt: rec.lastReplyAt, fromReload: rec.fromReload,
    jitterDraw: rec.jitterDraw, window: rec.window,
  }));
}
