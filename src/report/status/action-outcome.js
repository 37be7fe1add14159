// What a screen says once an action has answered: the outcome, not just "done" (a recycle can be
// skipped, or fail because the replacement never became ready while the old worker kept serving).
import { reloadSummary } from '../control-words.js';

const OUTCOMES = {
  recycled: 'replaced',
  gc: 'a full GC brought it under its limits',
  failed: 'the replacement was not ready in time; the old worker keeps serving',
  skipped: 'skipped: no ready worker in that slot, or it is already recycling',
};

/** One line for a `recycle` reply `{ slot, reason, result }`. */
export function recycleOutcome(reply) {
  return OUTCOMES[reply?.result] ?? String(reply?.result ?? 'done');
}

/** One line for a `reload` reply: a reload's document, or an older supervisor's `{ reloaded, results }`. */
export function reloadOutcome(reply) {
  // A reload stops at its first failure: its summary counts every worker, not the slots it reached.
  if (typeof reply?.result === 'string') return reloadSummary(reply)[0];
  const results = Array.isArray(reply?.results) ? reply.results : [];
  const failed = results.filter((r) => r.result === 'failed').map((r) => r.slot);
  let text = `${reply?.reloaded ?? 0} of ${results.length} slots replaced`;
  if (failed.length) text += `; slot ${failed.join(', ')} kept the old worker (replacement not ready)`;
  return text;
}

/** The line for any action's reply. */
export function actionOutcome(label, result) {
  if (typeof result === 'string') return `${label}: ${result}`;
  if (result && typeof result === 'object') {
    if (typeof result.message === 'string') return `${label}: ${result.message}`;
    if (label === 'reload' && 'reloaded' in result) return `${label}: ${reloadOutcome(result)}`;
    if (label.startsWith('recycle') && 'result' in result) return `${label}: ${recycleOutcome(result)}`;
  }
  return `${label}: done`;
}
