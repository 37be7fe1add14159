// The log is a listener on the supervisor's event stream, like metrics and the status history:
// every event becomes one pino line, worded from its fields by words.js, so the code that decides
// and acts never writes prose.
import { messageFor } from './words.js';
import { withSummary } from './resource-words.js';

/** Log every event on `events` with `logger`; returns a function that stops listening. */
export function logEvents(events, logger) {
  const onEvent = (fields, { level, msg }) => {
    // Debug events (a suspicion's start and end) are worded only where they are written.
    if (!logger.isLevelEnabled(level)) return;
    const line = withSummary(fields);
    logger[level](line, msg ?? messageFor(line));
  };
  events.on('event', onEvent);
  return () => events.off('event', onEvent);
}
