// When the primary dies without draining (SIGKILL, the OOM killer), each worker learns of it from
// its IPC channel closing and exits; a worker whose event loop is blocked never reads that close
// and would spin on as an orphan of init. A watchdog thread in every worker would cost each one
// ~10 MiB; instead one shell process per supervisor reads the live workers (pid and start time)
// from a pipe the primary holds. When the pipe closes it gives the workers a grace period to leave
// on their own, then SIGKILLs each one still alive, and its tree. /bin/sh and /proc only: no node
// process (~40 MiB) for a job that waits on a read.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const GRACE_S = 2;

// Traps: Ctrl-C or a closed terminal signals the whole process group; the guard must outlive
// them, and it ends on EOF anyway. The start time (field 22 of stat, 20th after the ')' that
// closes comm) guards against a pid recycled during the grace period.
const SCRIPT = `
trap '' INT HUP TERM QUIT
live=
while IFS= read -r line; do live=$line; done
[ -n "$live" ] || exit 0
sleep ${GRACE_S}
tree() {
  local p c
  for p in "$@"; do
    echo "$p"
    for c in $(cat /proc/$p/task/*/children 2>/dev/null); do tree "$c"; done
  done
}
for entry in $live; do
  pid=\${entry%%:*}
  stat=$(cat /proc/$pid/stat 2>/dev/null) || continue
  set -- \${stat##*) }
  [ "\${20}" = "\${entry#*:}" ] || continue
  kill -STOP $pid 2>/dev/null
  kill -KILL $(tree $pid) 2>/dev/null
done
exit 0
`;

/**
 * Start the guard; returns update(pids) to call whenever the set of live workers changes, and
 * close() for a clean stop. Where there is no /proc or no /bin/sh it is a no-op: nothing to guard
 * with, and never a reason not to start.
 */
export function startOrphanGuard({ onError = () => {} } = {}) {
  if (!fs.existsSync('/proc/self/stat') || !fs.existsSync('/bin/sh')) return { update() {}, close() {}, pid: null };
  const child = spawn('/bin/sh', ['-c', SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'] });
  let alive = true;
  const gone = (err) => {
    if (!alive) return;
    alive = false;
    onError(err);
  };
  child.on('error', gone);
  child.on('exit', () => gone(null));
  child.stdin.on('error', gone);
  // Neither the guard nor its pipe may keep the primary alive.
  child.unref();
  child.stdin.unref?.();
  return {
    pid: child.pid ?? null,
    /** @param {{pid:number, start:number|null}[]} workers every live worker, with its start time */
    update(workers) {
      if (!alive) return;
      const line = workers.filter((w) => w.start !== null).map((w) => `${w.pid}:${w.start}`).join(' ');
      child.stdin.write(`${line}\n`);
    },
    close() {
      if (alive) child.stdin.end('\n');
    },
  };
}

/**
 * Guard every worker of `pool`: the guard is told the live workers at each spawn and exit (a
 * worker's start time is read once, at its spawn). `onLost` hears that there is no guard (none
 * could start here, or it died); returns close() for a clean stop.
 * @param {import('./pool.js').Pool} pool
 * @param {(err:Error|null) => void} onLost
 */
export function guardPool(pool, onLost) {
  const guard = startOrphanGuard({ onError: onLost });
  if (guard.pid === null) onLost(new Error('no /bin/sh or no /proc here'));
  const update = () => guard.update(pool.records().map((rec) => ({ pid: rec.pid, start: rec.procStart })));
  pool.on('spawn', update);
  pool.on('exit', update);
  return {
    pid: guard.pid,
    close() {
      pool.off('spawn', update);
      pool.off('exit', update);
      guard.close();
    },
  };
}
