// Per-process memory and fd counts read straight from /proc: no process spawned per poll (the
// cluster of docs/incidents.md, incident 4, shelled out to awk every tick). A process that vanished mid-read gives
// null, never 0, so a failed probe cannot look like a healthy worker.
import fs from 'node:fs';
import { readText } from './read-text.js';

const hasRollup = (() => {
  try {
    fs.accessSync(`/proc/${process.pid}/smaps_rollup`);
    return true;
  } catch {
    return false;
  }
})();

// statm counts pages; the page size is learnt once by comparing it with status's kB for ourselves.
const PAGE_SIZE = (() => {
  try {
    const pages = Number(readText('/proc/self/statm').split(' ')[1]);
    const rss = parseStatus(readText('/proc/self/status'))?.rss;
    const size = rss && pages ? rss / pages : 4096;
    return 2 ** Math.round(Math.log2(size));
  } catch {
    return 4096;
  }
})();

/** RSS of pid in bytes from statm: cheap (~20 µs) where smaps_rollup walks every mapping. */
export function readRss(pid) {
  let text;
  try {
    text = readText(`/proc/${pid}/statm`);
  } catch {
    return null;
  }
  const resident = Number(text.split(' ', 2)[1]);
  return Number.isFinite(resident) ? resident * PAGE_SIZE : null;
}

/**
 * {rss, pss, anon} in bytes for pid, or null when it cannot be read (gone, no permission).
 * smaps_rollup costs the kernel a walk of every mapping (~0.7 ms for a 45 MB node process):
 * the poller calls this every tenth poll and readRss in between.
 */
export function readMemory(pid) {
  let text;
  try {
    text = readText(hasRollup ? `/proc/${pid}/smaps_rollup` : `/proc/${pid}/status`);
  } catch {
    return null;
  }
  return hasRollup ? parseRollup(text) : parseStatus(text);
}

/** Parse smaps_rollup text: Rss, Pss and Anonymous lines in kB. */
export function parseRollup(text) {
  const rss = field(text, '\nRss:');
  if (rss === null) return null;
  return { rss, pss: field(text, '\nPss:'), anon: field(text, '\nAnonymous:') };
}

/** Parse /proc/<pid>/status text (kernels without smaps_rollup): VmRSS and RssAnon. */
export function parseStatus(text) {
  const rss = field(text, '\nVmRSS:');
  if (rss === null) return null;
  return { rss, pss: null, anon: field(text, '\nRssAnon:') };
}

function field(text, label) {
  const i = text.indexOf(label);
  if (i < 0) return null;
  let j = i + label.length;
  while (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9) j++;
  let n = 0;
  let digits = 0;
  for (let c = text.charCodeAt(j); c >= 48 && c <= 57; c = text.charCodeAt(++j)) {
    n = n * 10 + (c - 48);
    digits++;
  }
  return digits ? n * 1024 : null;
}

/** Number of open file descriptors of pid, or null. */
export function countFds(pid) {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** Start time of pid in clock ticks since boot (field 22 of stat), to tell a reused pid apart. */
export function startTime(pid) {
  let text;
  try {
    text = readText(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  // comm (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const v = Number(rest[19]);
  return Number.isFinite(v) ? v : null;
}

/** Anonymous mappings of pid from smaps, and how many are 256 KiB (V8 heap pages: docs/incidents.md, incident 2). On demand only: smaps is large. */
export function countAnonMappings(pid) {
  let text;
  try {
    text = readText(`/proc/${pid}/smaps`);
  } catch {
    return null;
  }
  return parseAnonMappings(text);
}

/** Parse smaps text into {anonymous, v8Pages, anonRss}. */
export function parseAnonMappings(text) {
  let anonymous = 0;
  let v8Pages = 0;
  let anonRss = 0;
  const lines = text.split('\n');
  let current = null;
  for (const line of lines) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (m) {
      const size = parseInt(m[2], 16) - parseInt(m[1], 16);
      const name = m[4];
      // malloc's brk arena ([heap]) is anonymous memory too: native leaks through small mallocs land there.
      current = m[3] === '0' && (name === '' || name === '[heap]' || name.startsWith('[anon')) ? { size } : null;
      if (current) {
        anonymous++;
        if (size === 256 * 1024) v8Pages++;
      }
    } else if (current && line.startsWith('Rss:')) {
      anonRss += Number(/\d+/.exec(line)[0]) * 1024;
    }
  }
  return { anonymous, v8Pages, anonRss };
}
