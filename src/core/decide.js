// The decide step of a poll tick: (policy state, the serving workers' histories, now) →
// (policy state', verdicts, notices). Pure: it logs nothing and writes nothing on the workers.
// What it must remember between ticks (when a worker first went over, which warnings were
// given, the slot's streak of young workers over a limit) lives in the state it returns.
import { EVENTS, MEMORY_REASONS, REASONS } from '../constants.js';
import { evaluateWorker, evaluateFleet, baselineHold, predictCrossing } from './policy.js';
import { detectLeak } from './leak-detector.js';
import { advise } from './advice.js';
import { workerTrend, gcShare, scavenger } from './worker-trend.js';
import { overcommit } from './fit.js';
import { confirmStep, confirmedLeak, newConfirmState } from './heap-confirm.js';
import { detectHandleLeak, describeHandles } from './handle-trend.js';
import { projectTimeToLimit } from './trend.js';
import { describeSite } from './frames.js';
import { describeCommands } from './child-commands.js';
import { confirmedExternalLeak } from './external-leak.js';

/**
 * @typedef {object} WorkerPolicy  what the policy remembers of one worker
 * @property {number|null} firstOverAt  when it first went over a memory limit
 * @property {number|null} firstOverValue
 * @property {boolean} baselineWarned   limit.below-baseline already said
 * @property {number|null} leakWarnedAt  last leak.warning
 * @property {import('./heap-confirm.js').ConfirmState} confirm  a suspected heap leak being confirmed
 * @property {object|null} [leak]  the latest leak found in it (explainLeak, and when): for status and inspect
 *
 * @typedef {object} PolicyState
 * @property {{streak:number}[]} slots  consecutive young workers over a limit, per slot
 * @property {Record<number, WorkerPolicy>} workers  by pid, serving workers only
 * @property {string[]} advised         advice codes already given (once per supervisor run)
 *
 * @typedef {object} WorkerView  one serving worker, as the decision sees it
 * @property {number} slot @property {number} pid
 * @property {number} startedAt @property {number} readyAt @property {number} lastReplyAt
 * @property {number} jitterDraw
 * @property {import('./sample-window.js').SampleWindow} window
 * @property {boolean} held  a failed recycle's cooldown: judged for nothing, remembered still
 * @property {number|null} [predictionMissedAt]  when a predicted crossing of this worker last did not come
 * @property {import('./heap-confirm.js').ConfirmPoint[]} [points]  the heap after full GCs, newest last
 *
 * @typedef {{level:'info'|'warn'|'error', fields:{event:string}&object, msg:string}} Notice
 * @typedef {{slot:number, pid:number, reason:string, value:number|null, limit:number|null, kind?:string, trend?:object}} Verdict
 * @typedef {{slot:number, pid:number, point:boolean, profile:boolean}} Probe  a confirmation point to take, with the
 *   retained sites while the leak is unconfirmed; point false ends the suspicion
 */

/** A fresh policy state for `slots` slots. */
export function newPolicyState(slots) {
  return { slots: Array.from({ length: slots }, () => ({ streak: 0 })), workers: {}, advised: [] };
}

/**
 * Judge every serving worker and the fleet.
 * @param {PolicyState} state
 * @param {WorkerView[]} workers  the current, ready worker of each slot
 * @param {number} now
 * @param {{config: import('../types.js').Config, totalLimit: number|null, cgroupLimit: number|null, startupMs?: number|null, only?: Set<number>|null}} ctx
 *   startupMs: how long the app's workers took to become ready lately (for predictive replacement);
 *   only: the pids just sampled, when a tick polled a group of the workers: the others are
 *   remembered as they are and judged on their own group's tick (the fleet is judged every tick)
 * @returns {{state: PolicyState, verdicts: Verdict[], notices: Notice[], probes: Probe[]}}
 */
export function decide(state, workers, now, ctx) {
  const { config } = ctx;
  const next = { slots: state.slots.map((s) => ({ ...s })), workers: {}, advised: [...state.advised] };
  const verdicts = [];
  const notices = [];
  const probes = [];
  for (const w of workers) {
    const mine = { ...(state.workers[w.pid] ?? newWorkerPolicy()) };
    next.workers[w.pid] = mine;
    if (w.held || (ctx.only && !ctx.only.has(w.pid))) continue;
    adviceNotices(w, now, ctx, next.advised, notices);
    const probe = confirmProbe(w, mine, now, config);
    if (probe) probes.push(probe);
    const v = workerVerdict(w, mine, next.slots[w.slot], now, config, notices) ?? prediction(w, now, ctx);
    if (v) verdicts.push({ slot: w.slot, pid: w.pid, trend: workerTrend(w, config, now), ...v });
  }
  fitNotice(workers, ctx, next.advised, notices);
  const fleet = evaluateFleet(workers.map((w) => ({ slot: w.slot, sample: w.window.last() })), ctx.totalLimit);
  if (fleet && !verdicts.some((v) => v.slot === fleet.slot)) {
    verdicts.push({ pid: workers.find((w) => w.slot === fleet.slot)?.pid ?? null, ...fleet });
  }
  return { state: next, verdicts, notices, probes };
}

function newWorkerPolicy() {
  return { firstOverAt: null, firstOverValue: null, baselineWarned: false, leakWarnedAt: null, confirm: newConfirmState() };
}

// A rising heap floor is confirmed (or not) with full GCs; once confirmed, a point a minute keeps
// the verdict current at a third of the cost, and the profiler stops: the sites are known.
function confirmProbe(w, mine, now, config) {
  if (!config.leak) return null;
  const { state, action } = confirmStep(w, mine.confirm, now, {
    minGrowth: config.leak.minGrowth, pollInterval: config.pollInterval, spacingMs: mine.confirm.confirmedAt ? 60_000 : undefined,
  });
  mine.confirm = state;
  if (!action) return null;
  return { slot: w.slot, pid: w.pid, point: action === 'probe', profile: action === 'probe' && !state.confirmedAt && state.heap !== false, buffers: action === 'probe' && !state.confirmedAt && Boolean(state.external) };
}

// Predictive replacement. A prediction that did not come true (its spare was retired) is not
// tried again for this long, so a worker that rises and levels off costs one spare, not one a tick.
const PREDICT_AGAIN_MS = 60_000;

function prediction(w, now, { config, startupMs = null }) {
  if (!config.recycle.predictive || (w.predictionMissedAt != null && now - w.predictionMissedAt < PREDICT_AGAIN_MS)) return null;
  return predictCrossing(w.window, config.limits.rss, now, { startupMs, pollInterval: config.pollInterval, readyAt: w.readyAt });
}

// A limit first (a memory verdict may be held back when the limit sits below the app's baseline),
// then a leak.
function workerVerdict(w, mine, slotState, now, config, notices) {
  const v = evaluateWorker(w, config, now);
  if (v && MEMORY_REASONS.has(v.reason)) {
    if (mine.firstOverAt === null) {
      mine.firstOverAt = now;
      mine.firstOverValue = v.value;
    }
    const hold = baselineHold({ readyAt: w.readyAt, firstOverAt: mine.firstOverAt, firstOverValue: mine.firstOverValue, value: v.value }, slotState, now, {
      pollInterval: config.pollInterval, baseGraceMs: Math.max(30_000, 10 * config.pollInterval), maxGraceMs: 30 * 60_000,
    });
    if (hold.hold) {
      if (!mine.baselineWarned) {
        mine.baselineWarned = true;
        notices.push({
          level: 'warn',
          fields: { event: EVENTS.LIMIT_BELOW_BASELINE, slot: w.slot, pid: w.pid, reason: v.reason, value: v.value, limit: v.limit, holdMs: hold.graceMs },
          msg: `slot ${w.slot}: over the ${v.reason} limit right after start; the limit is below the app's baseline. Holding recycles for ${hold.graceMs} ms`,
        });
      }
      return null;
    }
    slotState.streak = hold.young ? slotState.streak + 1 : 0;
    return v;
  }
  if (v) return v;
  return leakVerdict(w, mine, now, config, notices);
}

// A leak recycles (action 'recycle') or is said once per leak window (action 'warn'). A leak found
// early (confirmed by full GCs, or handles climbing) is said at once; with action 'recycle' the
// worker goes once it has leaked for a whole leak window, or sooner when a limit is nearer than that.
function leakVerdict(w, mine, now, config, notices) {
  const { leak, limits, pollInterval } = config;
  if (!leak) return null;
  // Warm-up (caches filling after start) must not read as a leak: judged from readiness on.
  const startedAt = w.readyAt ?? w.startedAt;
  let found = detectLeak(w.window, { leak, limits, now, pollInterval, startedAt });
  let early = false;
  if (!found) {
    found = confirmedHeapLeak(w, mine, limits, leak.minGrowth)
      ?? confirmedExternalLeak(w.points ?? [], mine.confirm, { minGrowth: leak.minGrowth, rssLimit: limits?.rss ?? null, treeRss: w.window.last()?.treeRss ?? null })
      ?? detectHandleLeak(w.window, { now, startedAt });
    if (!found) return null;
    early = true;
    if (found.kind === 'heap' || found.kind === 'external') mine.confirm = { ...mine.confirm, confirmedAt: mine.confirm.confirmedAt ?? now };
  }
  const explained = explainLeak(found);
  mine.leak = { at: now, ...explained };
  const ripe = !early || now - startedAt >= leak.window || (found.projectedLimitInSec != null && found.projectedLimitInSec * 1000 <= leak.window);
  if (leak.action === 'warn' || !ripe) {
    if (mine.leakWarnedAt === null || now - mine.leakWarnedAt >= leak.window) {
      mine.leakWarnedAt = now;
      notices.push({
        level: 'warn',
        fields: { event: EVENTS.LEAK_WARNING, slot: w.slot, pid: w.pid, ...explained },
        msg: `slot ${w.slot}: ${leakText(found)}`,
      });
    }
    return null;
  }
  if (found.kind === 'handles') {
    return { reason: REASONS.LEAK, kind: found.kind, value: found.growthPerSec, limit: null, ...explained };
  }
  return {
    reason: REASONS.LEAK, kind: found.kind, value: Math.round(found.growthBytesPerSec), limit: Math.round(leak.minGrowth),
    ...(found.sites ? { sites: found.sites } : {}), ...(found.confirm ? { confirm: found.confirm } : {}), ...(found.commands ? { commands: found.commands } : {}),
    trend: { field: found.field, growthBytesPerSec: explained.growthBytesPerSec, r2: round2(found.r2), windowMs: found.windowMs, projectedLimitInSec: explained.projectedLimitInSec },
  };
}

function confirmedHeapLeak(w, mine, limits, minGrowth) {
  const found = confirmedLeak(w.points ?? [], mine.confirm, minGrowth);
  if (!found) return null;
  const last = w.window.last();
  const projected = [
    projectTimeToLimit(found.heapAfterGc, found.growthBytesPerSec, limits?.heapUsed ?? null),
    projectTimeToLimit(last?.treeRss ?? null, found.growthBytesPerSec, limits?.rss ?? null),
  ].filter((x) => x !== null);
  return { ...found, projectedLimitInSec: projected.length ? Math.min(...projected) : null };
}

function leakText(found) {
  if (found.kind === 'handles') return `handles leak: ${describeHandles(found.types)}`;
  const site = found.sites?.[0];
  const where = site ? `, mostly from ${describeSite(site)}` : found.commands ? `: ${describeCommands(found.commands)}` : '';
  return `${found.kind} grows ${(found.growthBytesPerSec * 60 / 1048576).toFixed(1)} MiB/min${where}`;
}

/**
 * The fields every leak verdict carries, in events and in inspect: kind, rate, fit, time to the
 * limit, and what is known of where: the retaining sites (heap), the growing types (handles), and
 * how the heap leak was confirmed (full GCs, their pauses).
 */
export function explainLeak(found) {
  const out = {
    kind: found.kind,
    growthBytesPerSec: found.kind === 'handles' ? null : Math.round(found.growthBytesPerSec),
    projectedLimitInSec: found.projectedLimitInSec === null || found.projectedLimitInSec === undefined ? null : Math.round(found.projectedLimitInSec),
    confidence: round2(found.confidence ?? found.r2 ?? 0),
    r2: round2(found.r2 ?? 0),
  };
  if (found.kind === 'handles') Object.assign(out, { growthPerSec: found.growthPerSec, types: found.types, summary: describeHandles(found.types) });
  if (found.sites) out.sites = found.sites;
  else if (found.sitesUnavailable) out.sitesUnavailable = found.sitesUnavailable;
  if (found.confirm) out.confirm = found.confirm;
  if (found.commands) out.commands = found.commands;
  return out;
}

// Advice is re-checked every tick (it is a few comparisons on the newest sample) and each code
// is said once per supervisor run.
function adviceNotices(w, now, ctx, advised, notices) {
  const last = w.window.last();
  if (!last) return;
  // The newest sample with the GC rates on top: a view of it, not a copy of its forty fields.
  const sample = Object.assign(Object.create(last), { gcShare: gcShare(w.window, now), ...scavenger(w.window, now) });
  for (const a of advise(sample, { limits: ctx.config.limits, cgroupLimit: ctx.cgroupLimit })) {
    if (advised.includes(a.code)) continue;
    advised.push(a.code);
    notices.push({ level: 'warn', fields: { event: EVENTS.ADVICE, slot: w.slot, pid: w.pid, code: a.code }, msg: a.message });
  }
}

// Once per run, as soon as a worker has told its V8 heap limit: do the workers fit in the container?
function fitNotice(workers, ctx, advised, notices) {
  if (advised.includes('overcommit') || !ctx.cgroupLimit) return;
  let heapLimit = null;
  let nativeBaseline = null;
  for (const w of workers) {
    const last = w.window.last();
    if (last?.heapLimit) heapLimit = Math.max(heapLimit ?? 0, last.heapLimit);
    if (last?.native != null) nativeBaseline = Math.min(nativeBaseline ?? Infinity, last.native);
  }
  if (heapLimit === null) return;
  advised.push('overcommit');
  const { limits, workers: count } = ctx.config;
  const found = overcommit({ workers: count, cgroupLimit: ctx.cgroupLimit, rssLimit: limits.rss, heapLimit, nativeBaseline, totalRss: limits.totalRss });
  if (found) notices.push({ level: 'warn', fields: { event: EVENTS.ADVICE, code: found.code, need: found.need, limit: found.limit }, msg: found.message });
}

function round2(x) {
  return Math.round(x * 100) / 100;
}
