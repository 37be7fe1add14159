// How long the event loop's thread waited for a CPU, from the kernel's scheduler statistics
// (/proc/thread-self/schedstat: time on a CPU, time runnable but waiting, in ns). A loop that is
// late because its thread could not get a CPU (other processes busy) is CPU starvation, not
// blocking code: the two need opposite fixes, and only this tells them apart.
import { readWaitNs as readWait } from '../../proc/schedstat.js';

const FILE = '/proc/thread-self/schedstat';
const readWaitNs = () => readWait(FILE);

/** Start measuring; share() gives the share of wall time since the last call spent waiting for a CPU (0..1), or null. */
export function cpuWait(now = () => process.hrtime.bigint()) {
  let last = { wait: readWaitNs(), at: now() };
  return {
    /** @param {boolean} [close]  false: look without starting a new window (inspect) */
    share(close = true) {
      const wait = readWaitNs();
      const at = now();
      const wall = Number(at - last.at);
      const out = wait === null || last.wait === null || !(wall > 0) ? null : Math.max(0, Math.min(1, (wait - last.wait) / wall));
      if (close) last = { wait, at };
      return out;
    },
  };
}
