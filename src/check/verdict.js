// The gate's verdict, from what the supervisor said during the run: its events (a leak named, a
// worker recycled for memory or killed by the kernel) and the last tick's judgements (a rise still
// under way). Pure: data in, data out; words are report-text.js's, the exit code is decided here.
// The supervisor names every leak; this only reads its verdicts, and says when the run was too
// short for any verdict to have come, rather than guess.
import { EVENTS, LEAK_KINDS, MEMORY_REASONS, REASONS } from '../constants.js';
import { judgingTimes, CONFIRMATION_MS, DETECTORS, EARLY_KINDS } from './judging-time.js';

/** What a check came to, and its exit status. */
export const RESULTS = Object.freeze({
  PASS: { result: 'pass', exitCode: 0 },
  TOO_SHORT: { result: 'too-short', exitCode: 0 },
  FAIL: { result: 'fail', exitCode: 1 },
  ERROR: { result: 'error', exitCode: 2 },
});

/**
 * @typedef {object} CheckLeak  one kind of leak named in the run, across the slots that leaked it
 * @property {string} kind @property {number[]} slots @property {number} namedAtS  seconds after ready
 * @property {number|null} growthBytesPerSec  the fastest rate said (null for handles)
 * @property {number|null} growthPerSec  handles a second (handles only)
 * @property {object[]|null} sites  the retaining sites, largest first, as the supervisor named them
 * @property {string|null} sitesUnavailable @property {object[]|null} types  handles' growing types
 * @property {object[]|null} commands  children's commands @property {number|null} workersInRow
 * @property {object|string|null} holder  what holds it, when a retainer analysis said
 * @property {boolean} recycled  a worker was recycled for it
 *
 * @typedef {object} CheckVerdict
 * @property {'pass'|'too-short'|'fail'|'error'} result @property {0|1|2} exitCode
 * @property {CheckLeak[]} leaks
 * @property {{reason:string, slot:number, pid:number, atS:number, value?:number|null, limit?:number|null, predictive?:boolean}[]} memory
 *   workers recycled for a memory limit, or killed by the kernel's OOM killer (reason 'oom-kill')
 * @property {number} ranS  seconds from every worker ready to the end of the load
 * @property {boolean} tooShort @property {number|null} suggestDurationS
 * @property {Record<string, number>|null} judgeAfterS  per kind: the run length its verdict needs
 * @property {Record<string, boolean>} judged  per kind: whether the run was long enough for it
 * @property {{code:string}[]} notes  what else happened (crashes, a limit below the baseline, a rise under way)
 * @property {{what:string, reason:string}|null} failure
 */

/**
 * @param {object} run
 * @param {object[]} run.events  the supervisor's events in order, each its fields and `time` (ms)
 * @param {object[]|null} run.judgements  the last tick's WorkerJudgement list (core/policy/decide.js),
 *   each with `pointAt`: when its count of confirmation points last rose (null: not during the run)
 * @param {{leak: false|{window:number, minGrowth:number, warmUp?:number}, pollInterval:number}} run.config
 * @param {number|null} run.startedAt  when every worker was ready (the load began)
 * @param {number} run.endedAt  when the load ended, or the duration
 * @param {{what:string, reason:string}|null} [run.failure]  the app or the load could not run
 * @returns {CheckVerdict}
 */
export function verdictOf({ events, judgements, config, startedAt, endedAt, failure = null }) {
  const readyAt = events.find((e) => e.event === EVENTS.WORKER_READY)?.time ?? startedAt ?? endedAt;
  const atS = (t) => Math.max(0, Math.round((t - readyAt) / 1000));
  const leaks = leaksOf(events, atS);
  const memory = memoryOf(events, atS);
  const notes = notesOf(events, atS, startedAt);
  const ranS = startedAt === null ? 0 : Math.max(0, Math.round((endedAt - startedAt) / 1000));
  const judgeAfterS = judgingTimes(config);
  const base = { leaks, memory, ranS, judgeAfterS, notes, failure, tooShort: false, suggestDurationS: null, judged: {} };
  if (leaks.length || memory.length) return { ...RESULTS.FAIL, ...base, judged: judgedKinds(judgeAfterS, ranS) };
  if (failure) return { ...RESULTS.ERROR, ...base };
  if (!judgeAfterS) return { ...RESULTS.PASS, ...base, notes: [...notes, { code: 'leak-off' }] };
  const short = shortBy(judgeAfterS, ranS, judgements, config, endedAt);
  if (short) return { ...RESULTS.TOO_SHORT, ...base, tooShort: true, suggestDurationS: short.suggestS, notes: [...notes, short.note] };
  const judged = judgedKinds(judgeAfterS, ranS);
  const unjudged = Object.keys(judged).filter((k) => !judged[k]);
  if (unjudged.length) notes.push({ code: 'not-judged', kinds: unjudged, needS: Math.max(...unjudged.map((k) => judgeAfterS[k])) });
  return { ...RESULTS.PASS, ...base, judged };
}

// A kind is judged when the run outlasted the time its verdict needs.
function judgedKinds(judgeAfterS, ranS) {
  if (!judgeAfterS) return {};
  return Object.fromEntries(Object.entries(judgeAfterS).map(([k, s]) => [k, ranS >= s]));
}

// Too short: the run ended before a leak from boot could be named, or while the supervisor was
// still confirming one: a worker's post-GC heap rising as fast as starts a confirmation, and its
// points being taken (one within a spacing and a half of the end). The polled floor alone wanders
// (a healthy app's read +0.9 MiB/min over its first two minutes here): points under way say the
// supervisor itself had not decided. A rise that lasts is named by the next run; a warm-up stops.
function shortBy(judgeAfterS, ranS, judgements, config, endedAt) {
  const fastS = Math.max(...EARLY_KINDS.map((k) => judgeAfterS[k]));
  if (ranS < fastS) return { suggestS: fastS, note: { code: 'too-short', ranS, needS: fastS } };
  const bar = DETECTORS.suspect * config.leak.minGrowth;
  const confirming = (j) => j.pointAt != null && endedAt - j.pointAt <= 1.5 * DETECTORS.spacingMs;
  const rising = (judgements ?? []).filter((j) => !j.leak && (j.judged?.trend?.heapPerSec ?? 0) >= bar && confirming(j));
  if (!rising.length) return null;
  const suggestS = Math.ceil((ranS + CONFIRMATION_MS / 1000) / 10) * 10;
  return {
    suggestS,
    note: { code: 'rising', ranS, suggestS, slots: rising.map((j) => j.slot).sort((a, b) => a - b), heapPerSec: Math.max(...rising.map((j) => j.judged.trend.heapPerSec)), points: Math.max(...rising.map((j) => j.points ?? 0)) },
  };
}

// Every named leak, one entry per kind: a leak.warning or a leak recycle, in any slot.
function leaksOf(events, atS) {
  const byKind = new Map();
  for (const e of events) {
    const isLeak = e.event === EVENTS.LEAK_WARNING || (e.event === EVENTS.WORKER_RECYCLE && e.reason === REASONS.LEAK);
    if (!isLeak || !e.kind) continue;
    const L = byKind.get(e.kind) ?? newLeak(e.kind, atS(e.time));
    byKind.set(e.kind, L);
    if (!L.slots.includes(e.slot)) L.slots.push(e.slot);
    if (e.growthBytesPerSec != null) L.growthBytesPerSec = Math.max(L.growthBytesPerSec ?? 0, e.growthBytesPerSec);
    if (e.growthPerSec != null) L.growthPerSec = Math.max(L.growthPerSec ?? 0, e.growthPerSec);
    if (e.sites?.length && !L.sites) L.sites = e.sites;
    if (e.sitesUnavailable && !L.sitesUnavailable) L.sitesUnavailable = e.sitesUnavailable;
    if (e.types?.length) L.types = e.types;
    if (e.summary) L.summary = e.summary;
    if (e.commands?.length) L.commands = e.commands;
    if (e.workersInRow) L.workersInRow = Math.max(L.workersInRow ?? 0, e.workersInRow);
    L.holder ??= bestHolder(e.holder ?? e.held);
    if (e.event === EVENTS.WORKER_RECYCLE) L.recycled = true;
  }
  // What a retainer analysis found holds a leak: the kind it names, else the slot's heap leak.
  for (const e of events) {
    if (e.event !== EVENTS.WORKER_RETAINERS) continue;
    const held = bestHolder(e.holder ?? e.held);
    const L = byKind.get(e.kind ?? LEAK_KINDS.HEAP);
    if (held && L && (e.slot == null || L.slots.includes(e.slot))) L.holder ??= held;
  }
  const out = [...byKind.values()];
  for (const L of out) L.slots.sort((a, b) => a - b);
  return out.sort((a, b) => a.namedAtS - b.namedAtS);
}

// A retainer analysis lists what holds a leak best first (docs/retainers.md: `held`): the first.
const bestHolder = (h) => (Array.isArray(h) ? h[0] ?? null : h ?? null);

function newLeak(kind, namedAtS) {
  return {
    kind, slots: [], namedAtS, growthBytesPerSec: null, growthPerSec: null, sites: null, sitesUnavailable: null,
    types: null, summary: null, commands: null, workersInRow: null, holder: null, recycled: false,
  };
}

// Workers recycled for a memory limit, and those the kernel's OOM killer ended: a limit was reached.
function memoryOf(events, atS) {
  const out = [];
  for (const e of events) {
    if (e.event === EVENTS.WORKER_RECYCLE && MEMORY_REASONS.has(e.reason)) {
      out.push({ reason: e.reason, slot: e.slot, pid: e.pid, atS: atS(e.time), value: e.value ?? null, limit: e.limit ?? null, predictive: Boolean(e.predictive) });
    } else if (e.event === EVENTS.WORKER_EXIT && e.oomKill) {
      out.push({ reason: 'oom-kill', slot: e.slot, pid: e.pid, atS: atS(e.time) });
    }
  }
  return out;
}

// What a reader of the verdict should know that does not decide it. A crash before every worker
// was ready is the failure itself, said once there.
function notesOf(events, atS, startedAt) {
  const notes = [];
  for (const e of events) {
    if (e.event === EVENTS.WORKER_EXIT && !e.planned && !e.oomKill && startedAt !== null && e.time >= startedAt) {
      notes.push({ code: 'crash', slot: e.slot, pid: e.pid, exitCode: e.code ?? null, signal: e.signal ?? null, atS: atS(e.time) });
    } else if (e.event === EVENTS.LIMIT_BELOW_BASELINE) {
      notes.push({ code: 'below-baseline', slot: e.slot, reason: e.reason, value: e.value, limit: e.limit, atS: atS(e.time) });
    } else if (e.event === EVENTS.RECYCLE_FAILED && !e.cancelled) {
      notes.push({ code: 'recycle-failed', slot: e.slot, reason: e.reason, atS: atS(e.time) });
    }
  }
  return notes;
}
