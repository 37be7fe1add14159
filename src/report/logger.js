// pino on stdout: one JSON object per line, or pino-pretty for people at a terminal. Synchronous
// writes: events are rare (no logging on an idle tick), and a sync destination cannot lose the last
// lines when the primary exits.
import { createRequire } from 'node:module';
import pino from 'pino';

// pino-pretty (and its formatting dependencies) costs the primary ~10 MiB of RSS: loaded only for
// pretty output.
const require = createRequire(import.meta.url);

/**
 * A pino logger for the primary. `destination` is a fd, a path (the --tui log file) or a stream
 * (the primary's bounded output sink, shared with the workers' lines).
 */
export function createLogger({ level = 'info', format = 'json', name, destination = 1 }) {
  // No `pid` in base: events carry the worker's pid in that field; the primary's is in supervisor.start.
  const opts = { level, base: { name }, timestamp: pino.stdTimeFunctions.isoTime };
  if (format === 'pretty') {
    const pretty = require('pino-pretty');
    // For people: one line per event, its message, which carries the numbers that matter (words.js).
    // Every field (a recycle's memory breakdown, trend and retained sites: ~50 lines) stays in the
    // JSON format, and shows here at debug.
    const everyField = pino.levels.values[level] <= pino.levels.values.debug;
    return pino(opts, pretty({
      destination, sync: true, colorize: destination === 1 && process.stdout.isTTY, ignore: 'hostname',
      hideObject: !everyField, singleLine: false, messageFormat: everyField ? undefined : oneLine,
    }));
  }
  if (typeof destination === 'object') return pino(opts, destination);
  return pino(opts, pino.destination({ dest: destination, sync: true, mkdir: true }));
}

// An error riding on a line (a tick that threw) keeps its message on the line, not its stack.
function oneLine(log, messageKey) {
  const msg = String(log[messageKey] ?? '');
  const err = log.err?.message;
  return err && !msg.includes(err) ? `${msg}: ${String(err).split('\n', 1)[0]}` : msg;
}
