// The team's load command: run through a shell in the project directory once the workers are
// ready, in a process group of its own, so that stopping it (at --duration, or when the check ends
// early) reaches whatever it started, and nothing it started outlives the check. The one owner
// of that process group.
import { spawn } from 'node:child_process';

const KILL_AFTER_MS = 5000;

/**
 * @typedef {{exitCode:number|null, signal:string|null, error:string|null}} LoadExit
 * @typedef {object} Load
 * @property {number|null} pid
 * @property {Promise<LoadExit>} done  settles when the shell exits, or could not be spawned
 * @property {() => boolean} running
 * @property {() => Promise<LoadExit>} stop  SIGTERM to its group, SIGKILL after 5 s; resolves at its exit
 * @property {() => void} reap  SIGKILL to whatever is left of its group (background jobs)
 */

/**
 * Start `command` with `sh -c`; its output goes to our stderr, so stdout stays the report's.
 * @param {string} command @param {{cwd:string, env?:NodeJS.ProcessEnv}} o
 * @returns {Load}
 */
export function startLoad(command, { cwd, env = process.env }) {
  const child = spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 2, 2] });
  let exit = null;
  const done = new Promise((resolve) => {
    child.once('error', (err) => { exit ??= { exitCode: null, signal: null, error: err.message }; resolve(exit); });
    child.once('exit', (code, signal) => { exit ??= { exitCode: code, signal, error: null }; resolve(exit); });
  });
  const pid = child.pid ?? null;
  const group = (signal) => {
    if (pid === null) return;
    try { process.kill(-pid, signal); } catch { /* ESRCH: nothing left in the group */ }
  };
  return {
    pid,
    done,
    running: () => exit === null,
    async stop() {
      if (exit) return exit;
      group('SIGTERM');
      const timer = setTimeout(() => group('SIGKILL'), KILL_AFTER_MS);
      try { return await done; } finally { clearTimeout(timer); }
    },
    reap: () => group('SIGKILL'),
  };
}

/** Why a load that ended by itself failed, in one line, or null when it succeeded. */
export function loadFailure(exit) {
  if (exit.error) return `the load command could not be spawned: ${exit.error}`;
  if (exit.signal) return `the load command was killed by ${exit.signal}`;
  if (exit.exitCode === 0) return null;
  const why = exit.exitCode === 127 ? ' (command not found)' : exit.exitCode === 126 ? ' (not executable)' : '';
  return `the load command exited with code ${exit.exitCode}${why}`;
}
