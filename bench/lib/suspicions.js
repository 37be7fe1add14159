// A nodesup arm's leak suspicions, read from its debug log (leak.suspected, leak.cleared): when each
// worker was under one, and what they took. A bench reads them to tell the rounds a suspicion ran
// through from those it did not, which the throughput alone cannot.

const timeOf = (e) => (typeof e.time === 'number' ? e.time : e.at);

/**
 * Each suspicion as a span of one worker: {pid, from, to, what, points}; `to` is `end` for one
 * still open (points null); what: 'heap', 'external' or 'heap+external', as it began.
 * @param {object[]} events  the arm's log events, in order @param {number} end
 */
export function suspicionSpans(events, end) {
  const open = new Map();
  const spans = [];
  for (const e of events) {
    if (e.event === 'leak.suspected') open.set(e.pid, { from: timeOf(e), what: [e.heap && 'heap', e.external && 'external'].filter(Boolean).join('+') });
    else if (e.event === 'leak.cleared' && open.has(e.pid)) {
      spans.push({ pid: e.pid, ...open.get(e.pid), to: timeOf(e), points: e.points ?? null });
      open.delete(e.pid);
    }
  }
  for (const [pid, began] of open) spans.push({ pid, ...began, to: end, points: null });
  return spans;
}

/** Whether any span overlaps [from, to]. */
export const overlaps = (spans, from, to) => spans.some((s) => s.from < to && s.to > from);

/** What the suspicions took: how many began, the worker-seconds under one, the points and forced GCs of those that cleared. */
export function suspicionTotals(events, end) {
  const cleared = events.filter((e) => e.event === 'leak.cleared');
  return {
    started: events.filter((e) => e.event === 'leak.suspected').length,
    cleared: cleared.length,
    workerSeconds: suspicionSpans(events, end).reduce((a, s) => a + (s.to - s.from) / 1000, 0),
    points: cleared.reduce((a, e) => a + (e.points ?? 0), 0),
    forcedGcs: cleared.reduce((a, e) => a + (e.forcedGcs ?? 0), 0),
  };
}
