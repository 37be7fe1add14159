// The bench's own view of processes, read straight from /proc. Deliberately independent of
// src/proc: a benchmark must not trust the code it measures to measure itself.
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

/** Clock ticks per second for /proc/<pid>/stat times (getconf once; 100 on every Linux we know). */
export const CLK_TCK = (() => {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return n > 0 ? n : 100;
  } catch {
    return 100;
  }
})();

const ROLLUP = fs.existsSync(`/proc/${process.pid}/smaps_rollup`);

/** Resident set size of pid in bytes (smaps_rollup `Rss:`, else status `VmRSS:`), or null if gone. */
export function rss(pid) {
  let text;
  try {
    text = fs.readFileSync(ROLLUP ? `/proc/${pid}/smaps_rollup` : `/proc/${pid}/status`, 'latin1');
  } catch {
    return null;
  }
  const m = (ROLLUP ? /\nRss:\s+(\d+) kB/ : /\nVmRSS:\s+(\d+) kB/).exec(text);
  return m ? Number(m[1]) * 1024 : null;
}

/** Direct children of pid, from every thread's `children` file. */
export function childrenOf(pid) {
  let tids;
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out = [];
  for (const tid of tids) {
    let text = '';
    try { text = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1'); } catch { continue; }
    for (const part of text.split(' ')) if (Number(part) > 0) out.push(Number(part));
  }
  return out;
}

/** pid and all its descendants. */
export function treeOf(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...childrenOf(out[i]));
  return out;
}

/** RSS of pid plus every descendant, bytes; null when pid itself is gone. */
export function treeRss(pid) {
  const own = rss(pid);
  if (own === null) return null;
  let total = own;
  for (const p of treeOf(pid).slice(1)) total += rss(p) ?? 0;
  return total;
}

/** utime + stime of pid in seconds (own threads only, not reaped children), or null. */
export function cpuSeconds(pid) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK; // fields 14 and 15 of stat
}

// Start time of pid in clock ticks since boot (stat field 22): with the pid, who a process is.
export { startTime } from '../../src/proc/memory.js';

/** True while pid exists and is not a zombie. */
export function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** A CPU meter for one pid: share of one core between start() and stop(), in percent. */
export function cpuMeter(pid) {
  let t0;
  let c0;
  return {
    start() { t0 = performance.now(); c0 = cpuSeconds(pid); },
    stop() {
      const c1 = cpuSeconds(pid);
      const wall = (performance.now() - t0) / 1000;
      return c0 === null || c1 === null ? null : { percent: (100 * (c1 - c0)) / wall, cpuSeconds: c1 - c0, wallSeconds: wall };
    },
  };
}

/**
 * CPU meters for a primary and its children (the workers) at once. stop(requests) gives the
 * primary's share of a core and the CPU a request, µs, of the primary and of the children
 * together: where a throughput gap is spent, which req/s on a host whose cores the load shares
 * cannot say. `children`: how many were metered (a child gone before stop() reads null).
 */
export function clusterCpuMeter(primaryPid) {
  const primary = cpuMeter(primaryPid);
  const children = childrenOf(primaryPid).map((pid) => cpuMeter(pid));
  return {
    children: children.length,
    start() {
      primary.start();
      for (const c of children) c.start();
    },
    stop(requests) {
      const p = primary.stop();
      const kids = children.map((c) => c.stop()?.cpuSeconds ?? null);
      const us = (s) => (s === null || !(requests > 0) ? null : (1e6 * s) / requests);
      return {
        primaryCpu: p?.percent ?? null,
        primaryUs: us(p?.cpuSeconds ?? null),
        workersUs: kids.includes(null) ? null : us(kids.reduce((a, b) => a + b, 0)),
      };
    },
  };
}
