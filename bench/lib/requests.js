// How the request accounting of bench/lib/load-child.js reads in a table.
import { int } from './stats.js';

export const REQUEST_HEADER = ['requests sent', '2xx', 'failed', 'errors (incl. timeouts)', 'non-2xx', 'lost silently', 'written after `Connection: close`', 'in flight at end'];

/** One row of REQUEST_HEADER from a load summary. */
export function requestCells(r) {
  return [int(r.sent), int(r.ok), `**${int(r.failed)}**`, int(r.errors), int(r.non2xx), int(r.lostSilently), int(r.afterClose), int(r.inFlightAtEnd)];
}

/** What the columns mean, once per section. */
export function requestNote(r) {
  const causes = Object.entries({ ...r.errorCodes, ...Object.fromEntries(Object.entries(r.statusCodes).map(([k, v]) => [`HTTP ${k}`, v])) });
  return [
    'failed = errors (autocannon\'s, timeouts included) + non-2xx + lost silently (a request outstanding on a connection the server closed without `Connection: close` and without a reset: autocannon reconnects and counts nothing, so bench/lib/accounted-load.js counts it per connection).',
    'Written after `Connection: close`: autocannon writes its next request on a connection whose last response said `Connection: close` (a draining worker says so); a compliant client (browsers, undici, node\'s http.Agent) never sends that request, so it is not a failure.',
    `Every request is accounted for when sent = 2xx + non-2xx + errors + lost silently + written after close + in flight at end: unaccounted here ${r.unaccounted}.${causes.length ? ` Causes of failures: ${causes.map(([k, v]) => `${k} ${v}`).join(', ')}.` : ''}`,
  ].join(' ');
}
