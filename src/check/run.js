// One check: the app under a supervisor in this process, as `nodesup start` runs it; the team's
// load once every worker is ready; the end at the load's end or the duration; then a drain and a
// stop, so that no worker, none of their children and nothing of the load outlives the check.
// What the supervisor said on its event stream is all the verdict reads (verdict.js).
import { runSupervisor } from '../primary/start.js';
import { newCollector } from './collect.js';
import { startLoad, loadFailure } from './load.js';
import { teeWithTail } from './app-stderr.js';
import { verdictOf } from './verdict.js';
import { checkDocument } from './document.js';

/**
 * @param {import('../types.js').Config} config  the app's config as check runs it (check-config.js)
 * @param {object} o
 * @param {string|null} o.load  the load command, or null: the app's own traffic for `durationMs`
 * @param {number|null} o.durationMs  the run's length without a load; with one, its cap
 * @param {string} o.cwd  the project directory: the load runs there, sites are shown relative to it
 * @param {number|null} [o.logFd]  the supervisor's log lines go there (--log), else nowhere
 * @param {string} o.script  the script as the user named it
 * @returns {Promise<ReturnType<typeof checkDocument>>}
 */
export async function runCheck(config, { load: command, durationMs, cwd, logFd = null, script }) {
  const output = teeWithTail(process.stderr);
  const collector = newCollector({ workers: config.workers, readyTimeoutMs: config.recycle.readyTimeout });
  /** @type {Parameters<NonNullable<Parameters<typeof runSupervisor>[1]['beforeStart']>>[0]|null} */
  let sup = null;
  const exited = runSupervisor(config, {
    streams: { stdout: output.stream, stderr: output.stream, ...(logFd !== null ? { log: logFd } : {}) },
    beforeStart: (s) => { sup = s; collector.listen(s.events); },
  });
  const ended = exited.then(() => ({ ended: true }));
  const ready = await Promise.race([collector.ready, ended]);
  let startedAt = null;
  let load = null;
  let failure = null;
  let endedAt;
  if (ready.ok) {
    startedAt = Date.now();
    load = command ? startLoad(command, { cwd }) : null;
    const end = await untilEnd({ load, durationMs, ended, stopped: collector.stopped });
    endedAt = Date.now();
    failure = end.failure;
  } else {
    endedAt = Date.now();
  }
  const loadExit = load ? (load.running() ? { ...(await load.stop()), stopped: true } : { ...(await load.done), stopped: false }) : null;
  // Workers with a named heap or external leak write a heap snapshot as they leave: the report can
  // then say what holds the leak (docs/retainers.md), at no cost to anyone.
  await sup?.stop('check', { evidence: true });
  await exited;
  load?.reap();
  if (!ready.ok) failure = notReady(ready, sup, config, output);
  else if (!failure && loadExit && !loadExit.stopped) failure = failed('load', loadFailure(loadExit));
  const verdict = verdictOf({ events: collector.events(), judgements: collector.judgements(), config, startedAt, endedAt, failure });
  return checkDocument(verdict, {
    script, name: config.name, workers: config.workers, durationS: durationMs === null ? null : Math.round(durationMs / 1000),
    load: command ? { command, pid: load?.pid ?? null, exitCode: loadExit?.exitCode ?? null, signal: loadExit?.signal ?? null, stopped: Boolean(loadExit?.stopped) } : null,
    requests: collector.requests(), startedAt, endedAt, workerPids: collector.workerPids(), cwd,
  });
}

const failed = (what, reason) => (reason ? { what, reason } : null);

// The run ends at the first of: the load's own end, the duration, or a stop nobody here asked for
// (a signal, `nodesup stop`, workers crashing in a loop).
async function untilEnd({ load, durationMs, ended, stopped }) {
  let timer = null;
  const waits = [ended.then(() => 'supervisor'), stopped.then(() => 'supervisor')];
  if (load) waits.push(load.done.then(() => 'load'));
  if (durationMs !== null) waits.push(new Promise((resolve) => { timer = setTimeout(resolve, durationMs, 'duration'); }));
  const why = await Promise.race(waits);
  clearTimeout(timer);
  if (why !== 'supervisor') return { failure: null };
  return { failure: { what: 'stopped', reason: 'nodesup was stopped (a signal, `nodesup stop`, or workers crashing in a loop) before the check ended' } };
}

// Why the app never had every worker ready: the supervisor's own fatal error, a worker killed at
// its readyTimeout, or a worker that exited, said by its error's line.
function notReady(ready, sup, config, output) {
  const fatal = sup?.fatal();
  if (fatal) return failed('app', `the app could not start: ${fatal.message}`);
  if (ready.ended) return failed('stopped', 'nodesup was stopped (a signal or `nodesup stop`) before the app was ready');
  const e = ready.exit;
  const waited = `${Math.round(config.recycle.readyTimeout / 1000)} s`;
  if (!e || e.notReady) {
    return failed('app', `the app was not ready within ${waited} (recycle.readyTimeout): it neither listened nor called ready() from nodesup/worker`);
  }
  const how = e.signal ? `was killed by ${e.signal}` : `exited with code ${e.code}`;
  const line = output.errorLine();
  return failed('app', `the app could not start: slot ${e.slot} ${how} before it was ready${line ? `: ${line}` : ''}`);
}
