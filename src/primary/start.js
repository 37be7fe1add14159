// Running a supervisor from a validated config: bind the control socket and the metrics port, and
// only then fork. Resolves with the exit code once it has stopped. The CLI (cli/commands/start.js)
// and the API (index.js, startSupervisor) both come here.
import fs from 'node:fs';
import path from 'node:path';
import { EXIT } from '../errors.js';
import { createLogger } from '../report/logger.js';
import { logEvents } from '../report/log-listener.js';
import { openSink } from './app-output.js';
import { EVENTS } from '../constants.js';
import { runDir, ensureRunDir } from '../control/run-dir.js';
import { startControlServer } from '../control/server.js';
import { Supervisor } from './supervisor.js';
import { handleSignals } from './signals.js';

/**
 * Run a validated config until it stops.
 * `streams` (`nodesup check`): where the log (a Writable or a file descriptor) and the app's stdout
 * and stderr go instead of this process's own stdout and stderr. `beforeStart` is handed the
 * running supervisor's surface before the first worker forks, so a caller hears every event;
 * its `stop` joins a stop under way. `note`: one line to log before the start (how the CLI ran it).
 * @param {import('../types.js').Config} config
 * @param {{loadConfig?: (() => Promise<object>)|null, streams?: {log?: NodeJS.WritableStream|number, stdout?: NodeJS.WritableStream, stderr?: NodeJS.WritableStream}|null,
 *   note?: {level: string, fields: object, msg: string}|null,
 *   beforeStart?: ((run: {events: import('node:events').EventEmitter, api: import('./api.js').SupervisorApi, stop: (why: string, o?: {evidence?: boolean}) => Promise<void>, fatal: () => Error|null}) => void)|null}} [options]
 */
export async function runSupervisor(config, { loadConfig: reload = null, streams = null, beforeStart = null, note = null } = {}) {
  const dir = runDir();
  ensureRunDir(dir);
  // With --tui the screen is ours: logs and the app's own output go to one file beside the socket.
  const logFd = config.tui ? fs.openSync(path.join(dir, `${config.name}.log`), 'a', 0o600) : null;
  // One bounded, non-blocking writer per destination, shared by our log and the workers' lines.
  let sup = null;
  const dropped = (stream) => (lines, bytes) => sup?.log('warn', { event: EVENTS.OUTPUT_DROPPED, stream, lines, bytes },
    `${lines} lines of app output were dropped while ${stream} was not read`);
  const out = openSink(logFd ?? streams?.stdout ?? process.stdout, { onRecovered: dropped('stdout') });
  const err = logFd === null ? openSink(streams?.stderr ?? process.stderr, { onRecovered: dropped('stderr') }) : out;
  const logTo = streams?.log != null ? openSink(streams.log) : out;
  const logger = createLogger({ level: config.log.level, format: config.log.format, name: config.name, destination: logTo.stream });
  sup = new Supervisor(config, { output: { stdout: out, stderr: err, prefix: config.log.format === 'pretty' }, loadConfig: reload });

  logEvents(sup.events, logger);
  if (note) sup.log(note.level, note.fields, note.msg);
  const control = await startControlServer({ name: config.name, dir, handlers: sup.api, report: (level, fields, msg) => sup.log(level, fields, msg) });
  let metricsServer = null;
  let metrics = null;
  if (config.metrics) {
    // prom-client is ~12 MiB of the primary's RSS: loaded only when metrics are on.
    const { createMetrics, startMetricsServer } = await import('../report/metrics/metrics.js');
    metrics = createMetrics({ getSnapshot: () => sup.readModel.snapshot(), events: sup.events, name: config.name, recycleCounter: sup.history.recycles });
    try {
      metricsServer = await startMetricsServer({
        metrics, host: config.metrics.host, port: config.metrics.port, isReady: () => sup.readModel.anyServing(), heapProfile: () => sup.profiles.latest(),
      });
    } catch (err) {
      await control.close();
      throw err;
    }
  }

  // Under --tui a SIGHUP means the terminal closed, not "reload": the screen handles it.
  const unhook = handleSignals(sup, { hangupStops: config.tui });
  // A stop the caller asks for joins one under way (a signal's) rather than forcing it.
  beforeStart?.({ events: sup.events, api: sup.api, stop: (why, o) => sup.stopping ?? sup.stop(why, o), fatal: () => sup.fatal });
  sup.start();
  if (config.tui) runTui(sup, sup.api);
  await sup.done;
  unhook();
  await Promise.allSettled([control.close(), metricsServer?.close(), metrics?.close()]);
  if (sup.fatal) {
    process.stderr.write(`nodesup: ${sup.fatal.message}\n`);
    if (sup.fatal.appError) process.stderr.write(`nodesup: the app's last error output:\n${sup.fatal.appError}\n`);
    return EXIT.RUNTIME;
  }
  return sup.forced ? EXIT.RUNTIME : EXIT.OK;
}

// The screen never handles a signal here: signals.js is their one owner, and a SIGTERM drains like
// any stop. The screen ends when the supervisor is done, or first when the user quits (q, Ctrl-C in
// raw mode) or the terminal goes away, and then it asks for the same drain.
async function runTui(sup, api) {
  const { runStatusScreen } = await import('../report/status/status-screen.js');
  try {
    await runStatusScreen({
      stopSignals: [],
      until: sup.done,
      fetchSnapshot: async () => api.status(),
      fetchHistory: async (slot, range) => api.history({ slot, ...range }),
      actions: { recycle: (slot) => api.recycle({ slot }), reload: () => api.reload(), inspect: (slot) => api.inspect({ slot }) },
    });
  } catch (err) {
    sup.log('error', { err }, 'status screen failed');
  } finally {
    if (!sup.stopping) sup.stop('tui');
  }
}
