// The log is a listener on the supervisor's event stream, like metrics and the status history:
// every event becomes one pino line. Messages that are a view of the fields (a recycle's
// "rss 300 MiB > 256 MiB") are written here, so the code that acts never imports a view.
import { EVENTS } from '../constants.js';
import { describeRecycle } from './status-view.js';

/** Log every event on `events` with `logger`; returns a function that stops listening. */
export function logEvents(events, logger) {
  const onEvent = (fields, { level, msg }) => {
    logger[level](fields, msg ?? messageFor(fields));
  };
  events.on('event', onEvent);
  return () => events.off('event', onEvent);
}

function messageFor(fields) {
  if (fields.event === EVENTS.WORKER_RECYCLE) {
    return `slot ${fields.slot} pid ${fields.pid} recycled: ${describeRecycle(fields)}${fields.kind ? ` (${fields.kind})` : ''}`;
  }
  return fields.event ?? '';
}
