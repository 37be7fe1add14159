// Reloads by what they came to, counted from the `reload` event: a deploy that failed is seen by
// whoever watches the fleet, not only by whoever ran the command.
import client from './prom.js';
import { EVENTS, RELOAD_RESULTS } from '../../constants.js';

const RESULTS = new Set(Object.values(RELOAD_RESULTS));

/** nodesup_reloads_total{result} on `registry`, fed by `events`; returns close(). */
export function addReloadCount(registry, events) {
  const reloads = new client.Counter({
    name: 'nodesup_reloads_total',
    help: 'Reloads by result: ok (every worker runs the new code), partial (some do), failed (none does).',
    labelNames: ['result'], registers: [registry],
  });
  // Every result's series exists from the start, so increase() sees the first failure too.
  for (const result of RESULTS) reloads.inc({ result }, 0);
  const onEvent = (ev) => {
    // A metrics bug must never break the supervisor that emitted the event.
    try {
      if (ev?.event === EVENTS.RELOAD && RESULTS.has(ev.result)) reloads.inc({ result: ev.result });
    } catch { /* ignore */ }
  };
  events?.on('event', onEvent);
  return { close: () => events?.off('event', onEvent) };
}
