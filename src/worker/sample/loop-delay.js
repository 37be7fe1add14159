// Event-loop delay, sampled finely only while the loop works. A 10 ms monitor wakes an idle
// worker 100 times a second, which cost it 0.6 % of a core here: 128 idle workers kept most of a
// core busy doing nothing. While the last window's utilization was low the monitor wakes ten times
// a second instead. A stall long enough to matter (100 ms, what advice warns of) makes the coarse
// timer late by that much, so it is seen either way; a busy loop is back to 10 ms at the next read.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const FINE_MS = 10;
const COARSE_MS = 100;
const BUSY_ELU = 0.05;

/** Start monitoring; read(elu) returns the delay since the last read in ms, and picks the next resolution. */
export function loopDelay() {
  const monitors = { [FINE_MS]: monitorEventLoopDelay({ resolution: FINE_MS }), [COARSE_MS]: monitorEventLoopDelay({ resolution: COARSE_MS }) };
  let resolution = FINE_MS; // a worker starting up is busy
  monitors[resolution].enable();
  let last = { delayP50: null, delayP99: null, delayMax: null };
  const current = () => {
    const h = monitors[resolution];
    // The histogram records whole timer intervals; the delay is what exceeds the interval.
    const late = (ns) => Math.max(0, ns / 1e6 - resolution);
    return h.count ? { delayP50: late(h.percentile(50)), delayP99: late(h.percentile(99)), delayMax: late(h.max) } : null;
  };
  return {
    get resolution() { return resolution; },
    /**
     * The delay so far in the poll's window, or the last window's when none has a sample yet;
     * nothing is reset: `nodesup inspect` must not take the next poll's figures away from it.
     */
    peek() {
      return current() ?? last;
    },
    /**
     * The delay over the window since the last read, and the next window begins. A window with no
     * timer sample (shorter than the resolution, or just after it changed) says the last window's
     * figures: the agent answering proves the loop ran, and a series that drops out for a poll
     * reads as a gap on a dashboard. Null only before the first sample ever.
     * @param {number} elu  the loop's utilization over the window being read, 0..1
     */
    read(elu) {
      const h = monitors[resolution];
      const out = current() ?? last;
      last = out;
      h.reset();
      const next = elu >= BUSY_ELU ? FINE_MS : COARSE_MS;
      if (next !== resolution) {
        h.disable();
        resolution = next;
        monitors[next].reset();
        monitors[next].enable();
      }
      return out;
    },
  };
}
