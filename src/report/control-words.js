// What `nodesup reload`, `recycle` and `stop` print for a person: one line per slot as it happens,
// and a summary that says what runs now. Worded here from the documents the supervisor answers
// with (src/primary/recycle/manual-recycles.js, src/primary/api.js), so the CLI, the `reload`
// event's log line and any view say the same. A supervisor of an older nodesup answers with less
// (no pids, no reasons): the words say what they can, and that it is older.

// The stderr of a failed worker shown under its slot: the error and the frame that threw.
const MAX_EXCERPT = 3;
const INDENT = '          ';

/** "0.4 s" */
function secs(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** "30 s", "1.5 s": a configured duration as it was written. */
function wholeSecs(ms) {
  return ms % 1000 === 0 ? `${ms / 1000} s` : secs(ms);
}

/** "held by 2 open requests (oldest GET /x 9.8 s), 1 upgraded socket", or null. */
export function heldByWords(held) {
  if (!held) return null;
  const parts = [];
  const n = held.openRequests ?? held.requests?.length ?? 0;
  if (n) {
    const o = held.requests?.[0];
    parts.push(`${n} open request${n === 1 ? '' : 's'}${o ? ` (oldest ${o.method} ${o.path} ${secs(o.ageMs)})` : ''}`);
  }
  if (held.upgraded) parts.push(`${held.upgraded} upgraded socket${held.upgraded === 1 ? '' : 's'}`);
  return parts.length ? `held by ${parts.join(', ')}` : 'held by nothing the agent sees (timers, other handles)';
}

/**
 * The lines of a failed worker's stderr worth a person's eye: the error and the first frame of
 * the app's (not Node's) that threw; without a stack, its last lines.
 * @param {string[]} lines
 */
export function stderrExcerpt(lines = []) {
  const text = lines.filter((l) => l.trim() !== '' && !/^Node\.js v\d/.test(l));
  const isFrame = (l) => /^\s+at /.test(l);
  let end = -1;
  for (let i = text.length - 1; i >= 0; i--) if (isFrame(text[i])) { end = i; break; }
  if (end < 0) return text.slice(-MAX_EXCERPT);
  let start = end;
  while (start > 0 && isFrame(text[start - 1])) start--;
  const frames = text.slice(start, end + 1);
  const own = frames.find((f) => !/\(node:|at node:/.test(f)) ?? frames[0];
  return start > 0 ? [text[start - 1], own] : [own];
}

/** Why a new worker did not serve, in words: "the new worker exited with code 1 before it was ready". */
export function failureWords(failure) {
  if (!failure) return 'the new worker was not ready (an older supervisor does not say why)';
  switch (failure.why) {
    case 'exited':
      return failure.signal
        ? `the new worker was killed by ${failure.signal} before it was ready`
        : `the new worker exited with code ${failure.code} before it was ready`;
    case 'timeout':
      return `the new worker was not ready within ${wholeSecs(failure.readyTimeoutMs)} (recycle.readyTimeout)`;
    case 'cancelled':
      return 'the supervisor began to stop while the new worker started';
    case 'stopping':
      return 'the supervisor is stopping';
    case 'no-ready-worker':
      return 'no ready worker to replace (it is starting, or restarting after a crash)';
    default:
      return String(failure.why);
  }
}

/**
 * One slot's lines, as it finished:
 *   "  slot 0  pid 4101 → 4188  ready in 0.4 s, old worker drained in 1.1 s"
 *   "  slot 1  pid 4102 → 4190  failed: the new worker exited with code 1 before it was ready", then its error
 * @param {object} r  a slot's result (manual-recycles.js SlotResult), or an older supervisor's {slot, result}
 */
export function slotLines(r) {
  const pids = r.oldPid != null ? (r.newPid != null ? `pid ${r.oldPid} → ${r.newPid}` : `pid ${r.oldPid}`) : null;
  const head = `  slot ${r.slot}${pids ? `  ${pids}` : ''}  `;
  switch (r.result) {
    case 'recycled': {
      if (r.readyMs == null) return [`${head}replaced`];
      const old = r.forced
        ? `old worker killed after ${secs(r.drainedMs ?? 0)}${r.heldBy ? ` (${heldByWords(r.heldBy)})` : ''}`
        : r.drainedMs != null ? `old worker drained in ${secs(r.drainedMs)}` : 'old worker drained';
      return [`${head}ready in ${secs(r.readyMs)}, ${old}`];
    }
    case 'failed': {
      const lines = [`${head}failed: ${failureWords(r.failure)}`];
      for (const l of stderrExcerpt(r.failure?.stderr)) lines.push(`${INDENT}${l}`);
      return lines;
    }
    case 'skipped':
      return [`${head}skipped: ${failureWords(r.failure ?? { why: 'no-ready-worker' })}`];
    case 'gc':
      return [`${head}not replaced: a full GC brought it under its limits`];
    default:
      return [`${head}${r.result}`];
  }
}

/** "reloading 4 workers, one at a time" */
export function reloadStartLine({ workers, maxConcurrent = 1 }) {
  const pace = maxConcurrent <= 1 ? 'one at a time' : `${Math.min(maxConcurrent, workers)} at a time`;
  return `reloading ${workers} worker${workers === 1 ? '' : 's'}, ${pace}`;
}

/** A reload's document as a newer supervisor gives it, from whatever a supervisor answered. */
export function reloadDocument(reply) {
  if (reply && typeof reply.result === 'string') return reply;
  const results = Array.isArray(reply?.results) ? reply.results : [];
  const workers = results.length;
  const reloaded = reply?.reloaded ?? results.filter((r) => r.result === 'recycled').length;
  return {
    result: reloaded === workers ? 'ok' : reloaded === 0 ? 'failed' : 'partial',
    workers, reloaded, oldCode: workers - reloaded, serving: null, stoppedAt: null, stoppedBy: null, notStarted: [], pinned: null, results,
  };
}

/**
 * The summary of a reload: "stopped at slot 1: 1 of 4 workers run the new code, 3 still run the
 * old one (all serving)", and after a failure what restarts and recycles start until a reload
 * succeeds.
 */
export function reloadSummary(doc) {
  const { workers = 0, reloaded = 0 } = doc;
  const old = doc.oldCode ?? workers - reloaded;
  const serving = doc.serving == null ? '' : doc.serving >= workers ? ' (all serving)' : ` (${doc.serving} of ${workers} serving)`;
  const counts = `${reloaded} of ${workers} worker${workers === 1 ? '' : 's'} run${reloaded === 1 && workers === 1 ? 's' : ''} the new code`;
  const lines = [];
  if (doc.result === 'ok') lines.push(`done: ${counts}${doc.durationMs != null ? ` (${secs(doc.durationMs)})` : ''}`);
  else {
    const rest = `${counts}, ${old} still run${old === 1 ? 's' : ''} the old one${serving}`;
    if (doc.stoppedBy === 'failure' && doc.stoppedAt != null) lines.push(`stopped at slot ${doc.stoppedAt}: ${rest}`);
    else if (doc.stoppedBy === 'stop') lines.push(`stopped by the supervisor's stop: ${counts}, ${old} did not get it`);
    else lines.push(`not every worker was replaced: ${rest}`);
  }
  if (doc.pinned?.script) lines.push(`until a reload succeeds, crash restarts and recycles start the code that serves: ${doc.pinned.script}`);
  return lines;
}

/** The whole text of a reload answered at once (no progress heard): its slots, then its summary. */
export function reloadText(reply, { olderSupervisor = false } = {}) {
  const doc = reloadDocument(reply);
  const lines = [];
  if (doc.workers) lines.push(reloadStartLine({ workers: doc.workers, maxConcurrent: doc.maxConcurrent ?? 1 }));
  for (const r of doc.results) lines.push(...slotLines(r));
  lines.push(...reloadSummary(doc));
  if (olderSupervisor) lines.push('(the supervisor runs an older nodesup: no progress, pids or reasons)');
  return lines;
}

/** A manual recycle: its slot's lines and what runs now. */
export function recycleText(r, { olderSupervisor = false } = {}) {
  const lines = [...slotLines(r)];
  if (r.result === 'recycled') lines.push(`recycled slot ${r.slot}`);
  else if (r.result === 'failed') lines.push(`recycle of slot ${r.slot} failed: ${r.oldPid != null ? `its old worker (pid ${r.oldPid})` : 'its old worker'} keeps serving`);
  else lines.push(`slot ${r.slot} was not recycled`);
  if (olderSupervisor) lines.push('(the supervisor runs an older nodesup: no pids or reasons)');
  return lines;
}

/** "stopping 2 workers" */
export function stopStartLine({ workers }) {
  return `stopping ${workers} worker${workers === 1 ? '' : 's'}`;
}

/** One worker gone during a stop: "  slot 0  pid 4101  drained in 0.3 s". */
export function stopWorkerLine(w) {
  const how = w.forced
    ? `killed after ${secs(w.drainMs ?? 0)}${w.heldBy ? ` (${heldByWords(w.heldBy)})` : ''}`
    : w.drainMs != null ? `drained in ${secs(w.drainMs)}` : `exited (${w.signal ?? w.code})`;
  return `  slot ${w.slot}  pid ${w.pid}  ${how}`;
}

/** The end of a stop: "stopped in 1.2 s", and how many workers had to be killed. */
export function stopSummary(doc) {
  const forced = (doc.workers ?? []).filter((w) => w.forced).length;
  const took = doc.durationMs != null ? ` in ${secs(doc.durationMs)}` : '';
  return forced ? `stopped${took}: ${forced} of ${doc.workers.length} workers had to be killed at recycle.killTimeout` : `stopped${took}`;
}
