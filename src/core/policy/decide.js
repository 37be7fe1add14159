// The decide step of a poll tick: (policy state, the serving workers' histories, now) →
// (policy state', verdicts, notices). Pure: it logs nothing and writes nothing on the workers.
// What it must remember between ticks (when a worker first went over, which warnings were
// given, the slot's streak of young workers over a limit) lives in the state it returns.
import { ADVICE, EVENTS, LEAK_KINDS, MEMORY_REASONS, REASONS } from '../../constants.js';
import { evaluateWorker, evaluateFleet, baselineHold, predictCrossing } from './policy.js';
import { detectLeak } from '../leak/leak-detector.js';
import { advise, AdviceView } from './advice.js';
import { workerTrend, gcShareLastMinute, scavenger, nativeRising, stepOf } from '../forecast/worker-trend.js';
import { overcommit } from './fit.js';
import { confirmStep, samplesSites, confirmedLeak, pointsRefute, episode, confirmSummary, CONFIRM, SUSPECT_LEAD_MS } from '../leak/heap-confirm.js';
import { newWorkerPolicy, newSlotPolicy } from './outcomes.js';
import { gcMinIntervalMs, risingFast } from './gc-recheck.js';
import { hotPoll } from '../forecast/hot-poll.js';
import { profileProbe, profileNext, slotNotice, knownLeak } from '../leak/slot-story.js';
import { detectHandleLeak } from '../leak/handle-trend.js';
import { projectTimeToLimit } from '../forecast/trend.js';
import { memoryOf } from '../forecast/memory-of.js';
import { confirmedExternalLeak } from '../leak/external-leak.js';
import { detectChildrenLeak } from '../leak/children-trend.js';
import { warmUpEnd, learnLeak, forgetAtReload } from '../leak/warm-up.js';

/**
 * @typedef {object} WorkerPolicy  what the policy remembers of one worker
 * @property {number|null} firstOverAt  when it first went over a memory limit
 * @property {number|null} firstOverValue
 * @property {boolean} baselineWarned   limit.below-baseline already said
 * @property {number|null} leakWarnedAt  last leak.warning
 * @property {import('../leak/heap-confirm.js').ConfirmState} confirm  a suspected heap leak being confirmed
 * @property {object|null} [leak]  the latest leak found in it (explainLeak, and when): for status and inspect
 * @property {number|null} lastGcAt   when it last had a full GC before a recycle (outcomes.js)
 * @property {number|null} missedAt   when a predicted crossing of it last did not come
 * @property {import('../leak/heap-confirm.js').ConfirmPoint[]} points  its heap after full GCs, newest last
 *
 * @typedef {object} PolicyState
 * @property {{streak:number, heldUntil:number, leaked:{id:number, kind:string}|null}[]} slots  per slot: consecutive young workers over a
 *   limit, a failed recycle's cooldown (judged for nothing until then, remembered still), and the
 *   earliest worker of the code now running that leaked (its replacements are not held as warming up)
 * @property {Record<number, WorkerPolicy>} workers  by worker id (never pid: pids are reused), serving workers only
 * @property {string[]} advised         advice codes already given (once per supervisor run)
 *
 * @typedef {object} WorkerView  one serving worker, as the decision sees it
 * @property {number} id @property {number} slot @property {number} pid
 * @property {number} startedAt @property {number} readyAt @property {number} lastReplyAt
 * @property {number} jitterDraw
 * @property {boolean} [fromReload]  started by a reload (core/leak/warm-up.js forgets the slot's leak)
 * @property {import('../forecast/sample-window.js').SampleWindow} window
 *
 * @typedef {{level:'debug'|'info'|'warn'|'error', fields:{event:string}&object}} Notice  data: the report
 *   layer words it (report/words.js, report/advice-words.js)
 * @typedef {{slot:number, pid:number, reason:string, value:number|null, limit:number|null, kind?:string, trend?:object}} Verdict
 * @typedef {{slot:number, pid:number, point:boolean, profile:boolean}} Probe  a confirmation point to take, with the
 *   retained sites while the leak is unconfirmed; point false ends the suspicion
 */

/** A fresh policy state for `slots` slots. */
export function newPolicyState(slots) {
  return { slots: Array.from({ length: slots }, newSlotPolicy), workers: {}, advised: [] };
}

/**
 * Judge every serving worker and the fleet.
 * @param {PolicyState} state
 * @param {WorkerView[]} workers  the current, ready worker of each slot
 * @param {number} now
 * @param {{config: import('../../types.js').Config, totalLimit: number|null, cgroupLimit: number|null, startupMs?: number|null, only?: Set<number>|null}} ctx
 *   startupMs: how long the app's workers took to become ready lately (for predictive replacement);
 *   only: the pids just sampled, when a tick polled a group of the workers: the others are
 *   remembered as they are and judged on their own group's tick (the fleet is judged every tick)
 * @returns {{state: PolicyState, verdicts: Verdict[], notices: Notice[], probes: Probe[], pollMs: number|null, judgements: WorkerJudgement[]}}
 *   pollMs: the next tick sooner than the poll interval, while a worker rises toward its limit (hot-poll.js);
 *   judgements: the judgement and known leak of each worker judged on this tick, for the report side to keep
 *   (a worker not judged keeps its last)
 *
 * @typedef {{id:number, slot:number, pid:number, judged:Judgement|null, leak:object|null, points:number, profiler:string|null}} WorkerJudgement
 */
export function decide(state, workers, now, ctx) {
  const { config } = ctx;
  // The slot table follows the configured worker count (a config reload may resize it).
  const next = {
    slots: Array.from({ length: config.workers ?? state.slots.length }, (_, i) => ({ ...(state.slots[i] ?? newSlotPolicy()) })),
    workers: {}, advised: [...state.advised],
  };
  const verdicts = [];
  const notices = [];
  const probes = [];
  const judged = [];
  for (const w of workers) {
    const slotState = next.slots[w.slot] ??= newSlotPolicy();
    forgetAtReload(slotState, w);
    if (now < slotState.heldUntil || (ctx.only && !ctx.only.has(w.id))) {
      // Not judged on this tick: remembered as it was, not copied (a judgement copies before it writes).
      next.workers[w.id] = state.workers[w.id] ?? newWorkerPolicy();
      continue;
    }
    const mine = { ...(state.workers[w.id] ?? newWorkerPolicy()) };
    next.workers[w.id] = mine;
    judged.push(w);
    mine.judged = judge(w, mine.judged, now, ctx, next.advised);
    adviceNotices(w, mine.judged.advice, next.advised, notices);
    const probe = confirmProbe(w, mine, slotState, now, config, notices) ?? profileProbe(w, mine, now, config);
    if (probe) probes.push(probe);
    slotNotice(w, slotState, notices);
    const v = workerVerdict(w, mine, slotState, now, config, notices) ?? prediction(w, mine, now, ctx);
    if (v) verdicts.push(withGc({ slot: w.slot, pid: w.pid, id: w.id, trend: mine.judged.trend, ...v, profileNext: profileNext(v, slotState) }, mine, now, config, w.window));
  }
  fitNotice(workers, ctx, next.advised, notices);
  const fleet = evaluateFleet(workers.map((w) => ({ slot: w.slot, sample: w.window.last() })), ctx.totalLimit);
  if (fleet && !verdicts.some((v) => v.slot === fleet.slot)) {
    const w = workers.find((x) => x.slot === fleet.slot);
    verdicts.push(withGc({ pid: w?.pid ?? null, id: w?.id ?? null, ...fleet }, w ? next.workers[w.id] : null, now, config));
  }
  // Only what changed goes to the report side, which keeps each worker's last: at 128 workers a
  // tick judges one group of 16, and the other 112 judgements would be restated unchanged.
  const judgements = judged.map((w) => judgementOf(next, w));
  return { state: next, verdicts, notices, probes, pollMs: hotPoll(workers, now, config), judgements };
}

// What the report side keeps of a worker after this tick: the judgement, the leak it knows of, and
// where naming the leak's sites stands (confirmation points taken, why the profiler gave none).
function judgementOf(state, w) {
  const mine = state.workers[w.id];
  return {
    id: w.id, slot: w.slot, pid: w.pid, judged: mine.judged ?? null, leak: knownLeak(state, w),
    points: mine.points.length, profiler: mine.points.findLast((p) => p.profiler)?.profiler ?? null,
  };
}

// A step is looked for over minutes of samples in every part of the memory: not every tick.
export const STEP_EVERY_MS = 10_000;
// The minute's trend is what status, metrics and a verdict's `trend` show, and no verdict is
// drawn from it; its heap growth is fitted on 5 s buckets, which one more sample barely moves.
// Fitted on every tick it was a sixth to a fifth of the decide step's time at 128 idle workers.
export const TREND_EVERY_MS = 5_000;

/** What one tick concludes of a worker: its trend, GC shares, step and advice, made once here. */
function judge(w, prev, now, ctx, advised) {
  const { config } = ctx;
  const last = w.window.last();
  const gc = { gcShareLastMinute: gcShareLastMinute(w.window, now), ...scavenger(w.window, now) };
  const freshStep = !prev || now - prev.stepAt >= STEP_EVERY_MS || now < prev.stepAt;
  const step = freshStep ? stepOf(w.window, config.leak, now) : prev.step;
  const freshTrend = prev?.trendAt == null || now - prev.trendAt >= TREND_EVERY_MS || now < prev.trendAt;
  return {
    at: now, trend: freshTrend ? workerTrend(w, config, now) : prev.trend, trendAt: freshTrend ? now : prev.trendAt,
    ...gc, step: step ?? null, stepAt: freshStep ? now : prev.stepAt,
    advice: last ? adviceOf(w, last, gc, now, ctx, advised) : [],
  };
}

// Advice is a few comparisons on the newest sample with the GC rates on top. Native memory's trend
// is fitted only when advice asks (a worker with a large native gap), and not once that advice was
// said (once per run).
function adviceOf(w, last, gc, now, ctx, advised) {
  const rising = () => (advised.includes(ADVICE.NATIVE_GAP) ? undefined : nativeRising(w.window, now));
  return advise(new AdviceView(last, gc, rising), { limits: ctx.config.limits, cgroupLimit: ctx.cgroupLimit });
}

// The recycle's step 2 (docs/architecture.md): a memory verdict first tries a full GC, at most once a gcMinIntervalMs per
// worker. A predicted crossing is met by a ready replacement, not a GC that would only delay it;
// so is a worker rising fast, whose growth a GC cannot undo while it waits for one (risingFast).
function withGc(v, mine, now, config, window = null) {
  const gcFirst = Boolean(config.gcBeforeRecycle) && !v.predictive && MEMORY_REASONS.has(v.reason)
    && now - (mine?.lastGcAt ?? -Infinity) >= gcMinIntervalMs(config)
    && !(window && risingFast(window, v, now));
  return { ...v, gcFirst };
}

// A rising heap floor is confirmed (or not) with full GCs; once confirmed, a point a minute keeps
// the verdict current at a third of the cost, and the profiler stops: the sites are known.
function confirmProbe(w, mine, slotState, now, config, notices) {
  if (!config.leak) return null;
  const view = { window: w.window, readyAt: w.readyAt, startedAt: w.startedAt, points: mine.points };
  const before = mine.confirm;
  const { state, action } = confirmStep(view, before, now, {
    minGrowth: config.leak.minGrowth, pollInterval: config.pollInterval, spacingMs: before.confirmedAt ? 60_000 : undefined,
    notBefore: warmUpEnd(w, slotState, config.leak.warmUp) - SUSPECT_LEAD_MS,
  });
  mine.confirm = state;
  suspicionNotice(w, before, state, action, mine.points, now, notices);
  if (!action) return null;
  return {
    slot: w.slot, pid: w.pid, id: w.id, point: action === 'probe', profile: action === 'probe' && samplesSites(mine.points, state),
    buffers: action === 'probe' && !state.confirmedAt && Boolean(state.external),
    // A full GC the worker ran by itself within half a spacing serves: no forced GC then.
    reuseMs: CONFIRM.spacingMs / 2,
  };
}

// A suspicion's start and end, at debug: what leak detection costs a worker that turns out healthy
// (forced full GCs, the sites' profiler) is otherwise seen nowhere but in its CPU.
function suspicionNotice(w, before, state, action, points, now, notices) {
  const base = { slot: w.slot, pid: w.pid };
  if (before.since === null && state.since !== null) {
    notices.push({ level: 'debug', fields: { event: EVENTS.LEAK_SUSPECTED, ...base, heap: state.heap !== false, external: Boolean(state.external), reference: Boolean(state.ref) } });
  } else if (action === 'stop') {
    const taken = confirmSummary(episode(points, before));
    notices.push({
      level: 'debug',
      fields: { event: EVENTS.LEAK_CLEARED, ...base, durationMs: now - before.since, points: taken.points, forcedGcs: taken.forcedGcs, pauseMs: taken.pauseMs, confirmed: before.confirmedAt !== null },
    });
  }
}

// Predictive replacement. A prediction that did not come true (its spare was retired) is not
// tried again for this long, so a worker that rises and levels off costs one spare, not one a tick.
const PREDICT_AGAIN_MS = 60_000;

function prediction(w, mine, now, { config, startupMs = null }) {
  if (!config.recycle.predictive || (mine.missedAt != null && now - mine.missedAt < PREDICT_AGAIN_MS)) return null;
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
        });
      }
      return null;
    }
    slotState.streak = hold.young ? slotState.streak + 1 : 0;
    return v;
  }
  if (v) return v;
  return leakVerdict(w, mine, slotState, now, config, notices);
}

// A leak recycles (action 'recycle') or is said once per leak window (action 'warn'). A leak found
// early (confirmed by full GCs, handles or children climbing) is said at once, past a young
// worker's warm-up (core/leak/warm-up.js); with action 'recycle' the worker goes once it has leaked
// for a whole leak window, or sooner when a limit is nearer than that.
function leakVerdict(w, mine, slotState, now, config, notices) {
  const { leak } = config;
  if (!leak) return null;
  // Warm-up (caches filling after start) must not read as a leak: judged from readiness on.
  const startedAt = w.readyAt ?? w.startedAt;
  const seen = findLeak(w, mine, slotState, now, config, startedAt);
  if (!seen) return null;
  const { found, early } = seen;
  learnLeak(slotState, w, found.kind);
  const explained = explainLeak(found);
  // A leak said again by its window (which names no sites) is the leak its confirmation named:
  // it keeps the sites it was named with, so a reader never sees them come and go tick by tick.
  if (!explained.sites && mine.leak?.kind === explained.kind && mine.leak.sites) explained.sites = mine.leak.sites;
  mine.leak = { at: now, ...explained };
  const ripe = !early || now - startedAt >= leak.window || (found.projectedLimitInSec != null && found.projectedLimitInSec * 1000 <= leak.window);
  if (leak.action === 'warn' || !ripe) {
    if (mine.leakWarnedAt === null || now - mine.leakWarnedAt >= leak.window) {
      mine.leakWarnedAt = now;
      notices.push({
        level: 'warn',
        fields: { event: EVENTS.LEAK_WARNING, slot: w.slot, pid: w.pid, ...explained },
      });
    }
    return null;
  }
  if (found.kind === LEAK_KINDS.HANDLES) {
    return { reason: REASONS.LEAK, kind: found.kind, value: found.growthPerSec, limit: null, ...explained };
  }
  return {
    reason: REASONS.LEAK, kind: found.kind, value: Math.round(found.growthBytesPerSec), limit: Math.round(leak.minGrowth),
    ...(found.sites ? { sites: found.sites } : {}), ...(found.confirm ? { confirm: found.confirm } : {}), ...(found.commands ? { commands: found.commands } : {}),
    trend: { field: found.field, growthBytesPerSec: explained.growthBytesPerSec, r2: round2(found.r2), windowMs: found.windowMs, projectedLimitInSec: explained.projectedLimitInSec },
  };
}

// Handles first: sockets and timers left open hold their JS objects and buffers, so the heap (or
// external memory) of a worker leaking them grows with them, and the full-GC points confirm that
// growth. The cause is the handles; once they were named on this worker, memory that grows is
// theirs and the leak stays the handles one (an http.Agent per request: heap +3 MiB/min beside
// 11 sockets a second), rather than a second verdict of another kind.
function findLeak(w, mine, slotState, now, config, startedAt) {
  const handles = detectHandleLeak(w.window, { now, startedAt });
  if (handles) return { found: handles, early: true };
  const byWindow = windowRule(w, mine, now, config, startedAt);
  const found = byWindow ?? fastLeak(w, mine, slotState, now, config, startedAt);
  if (!found) return null;
  if (mine.leak?.kind === LEAK_KINDS.HANDLES && HELD_BY_HANDLES.has(found.kind)) return { found: handlesNamed(mine.leak), early: true };
  if (!byWindow && (found.kind === LEAK_KINDS.HEAP || found.kind === LEAK_KINDS.EXTERNAL)) mine.confirm = { ...mine.confirm, confirmedAt: mine.confirm.confirmedAt ?? now };
  return { found, early: !byWindow };
}

/** How often the leak window's rule is fitted; between, its last answer stands. */
export const WINDOW_EVERY_MS = 5_000;

// The window rule fits bucket minima over a whole leak window (buckets a twelfth of it, 25 s at the
// defaults), which one more second of samples barely moves, and it holds a worker past twice the
// window before it can speak: fitting it on every tick was a third of the decide step's time at 128
// idle workers, for an answer at most 5 s later.
// Its heap and RSS verdicts stand only where the points taken after full GCs do not refute them.
function windowRule(w, mine, now, { leak, limits, pollInterval }, startedAt) {
  const last = mine.windowed;
  let found;
  if (last && now >= last.at && now - last.at < WINDOW_EVERY_MS) found = last.found;
  else {
    found = detectLeak(w.window, { leak, limits, now, pollInterval, startedAt });
    mine.windowed = { at: now, found };
  }
  return found && !pointsRefute(mine.points, found, now, leak.minGrowth) ? found : null;
}

const HELD_BY_HANDLES = new Set([LEAK_KINDS.HEAP, LEAK_KINDS.EXTERNAL, LEAK_KINDS.NATIVE, LEAK_KINDS.RSS]);

// The handles verdict as it was named, for a tick on which the climb paused (a cap reached, a quiet
// minute) while the memory they hold still grows.
const handlesNamed = (named) => ({ kind: LEAK_KINDS.HANDLES, growthPerSec: named.growthPerSec, types: named.types, r2: named.r2, confidence: named.confidence, projectedLimitInSec: null });

// The leaks named before a window has passed, of the kinds a warm-up can look like: none before the
// warm-up hold ends, and none on points after full GCs until one was taken past it.
function fastLeak(w, mine, slotState, now, { leak, limits, pollInterval }, startedAt) {
  const end = warmUpEnd(w, slotState, leak.warmUp);
  if (now < end) return null;
  const pointPast = (mine.points.at(-1)?.at ?? -Infinity) >= end;
  const polled = { window: w.window, pollInterval };
  return (pointPast ? confirmedHeapLeak(w, mine, limits, leak.minGrowth, polled)
    ?? confirmedExternalLeak(mine.points, mine.confirm, { minGrowth: leak.minGrowth, rssLimit: limits?.rss ?? null, treeRss: memoryOf(w.window.last()), ...polled }) : null)
    ?? detectChildrenLeak(w.window, { now, startedAt, minGrowth: leak.minGrowth });
}

function confirmedHeapLeak(w, mine, limits, minGrowth, polled) {
  const found = confirmedLeak(mine.points, mine.confirm, minGrowth, polled);
  if (!found) return null;
  const last = w.window.last();
  const projected = [
    projectTimeToLimit(found.heapAfterGc, found.growthBytesPerSec, limits?.heapUsed ?? null),
    projectTimeToLimit(memoryOf(last), found.growthBytesPerSec, limits?.rss ?? null),
  ].filter((x) => x !== null);
  return { ...found, projectedLimitInSec: projected.length ? Math.min(...projected) : null };
}

/**
 * The fields every leak verdict carries, in events and in inspect: kind, rate, fit, time to the
 * limit, and what is known of where: the retaining sites (heap), the growing types (handles), and
 * how the heap leak was confirmed (full GCs, their pauses).
 */
export function explainLeak(found) {
  const out = {
    kind: found.kind,
    growthBytesPerSec: found.kind === LEAK_KINDS.HANDLES ? null : Math.round(found.growthBytesPerSec),
    projectedLimitInSec: found.projectedLimitInSec === null || found.projectedLimitInSec === undefined ? null : Math.round(found.projectedLimitInSec),
    confidence: round2(found.confidence ?? found.r2 ?? 0),
    r2: round2(found.r2 ?? 0),
  };
  if (found.kind === LEAK_KINDS.HANDLES) Object.assign(out, { growthPerSec: found.growthPerSec, types: found.types });
  if (found.processesPerMin != null) Object.assign(out, { processesPerMin: found.processesPerMin, children: found.children });
  if (found.sites) out.sites = found.sites;
  else if (found.sitesUnavailable) out.sitesUnavailable = found.sitesUnavailable;
  if (found.confirm) out.confirm = found.confirm;
  if (found.commands) out.commands = found.commands;
  return out;
}

// Each advice code is said once per supervisor run.
function adviceNotices(w, advice, advised, notices) {
  for (const a of advice) {
    if (advised.includes(a.code)) continue;
    advised.push(a.code);
    notices.push({ level: 'warn', fields: { event: EVENTS.ADVICE, slot: w.slot, pid: w.pid, ...a } });
  }
}

// Once per run, as soon as a worker has told its V8 heap limit: do the workers fit in the container?
function fitNotice(workers, ctx, advised, notices) {
  if (advised.includes(ADVICE.OVERCOMMIT) || !ctx.cgroupLimit) return;
  let heapLimit = null;
  let nativeBaseline = null;
  for (const w of workers) {
    const last = w.window.last();
    if (last?.heapLimit) heapLimit = Math.max(heapLimit ?? 0, last.heapLimit);
    if (last?.native != null) nativeBaseline = Math.min(nativeBaseline ?? Infinity, last.native);
  }
  if (heapLimit === null) return;
  advised.push(ADVICE.OVERCOMMIT);
  const { limits, workers: count } = ctx.config;
  // A total limit defaulted from the container (memory-budget.js) counts as set: '90%' would be looser.
  const totalRss = limits.totalRss ?? (ctx.totalLimit != null ? { bytes: ctx.totalLimit } : null);
  const found = overcommit({ workers: count, cgroupLimit: ctx.cgroupLimit, rssLimit: limits.rss, heapLimit, nativeBaseline, totalRss });
  if (found) notices.push({ level: 'warn', fields: { event: EVENTS.ADVICE, ...found } });
}

function round2(x) {
  return Math.round(x * 100) / 100;
}
