// The check's report in words: one line for the run, one for what it came to, and per leak the
// lines `nodesup inspect` would give of it. A site, a recycle and a handle type are worded by the
// report layer (site-words.js, words.js, resource-words.js), never here; this file only says
// which of them a CI log needs, and in what order.
import path from 'node:path';
import { LEAK_KINDS } from '../constants.js';
import { formatBytes, formatDuration } from '../units.js';
import { describeSite } from '../report/site-words.js';
import { describeRecycle } from '../report/words.js';
import { describeHandles, describeCommands } from '../report/resource-words.js';
import { describeHolder } from '../report/retainer-words.js';

const KIND_WORDS = {
  [LEAK_KINDS.HEAP]: 'heap', [LEAK_KINDS.EXTERNAL]: 'external memory (Buffers)', [LEAK_KINDS.NATIVE]: 'native memory',
  [LEAK_KINDS.CHILDREN]: 'child processes', [LEAK_KINDS.HANDLES]: 'handles', [LEAK_KINDS.RSS]: 'RSS',
};
const INDENT = '      ';
const SITES_SHOWN = 3;

const kindWords = (k) => KIND_WORDS[k] ?? k;
const slotsWords = (slots) => (slots.length === 1 ? `slot ${slots[0]}` : `slot ${slots.slice(0, -1).join(', slot ')} and slot ${slots.at(-1)}`);
const list = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/** "heap leak +9.3 MiB/min in slot 0 and slot 1, named at 168 s" */
export function leakHeadline(L) {
  const rate = L.kind === LEAK_KINDS.HANDLES
    ? (L.growthPerSec != null ? ` +${L.growthPerSec}/s` : '')
    : (L.growthBytesPerSec != null ? ` +${formatBytes(Math.round(L.growthBytesPerSec * 60))}/min` : '');
  const row = L.workersInRow ? ` (${L.workersInRow} workers in a row filled alike)` : '';
  return `${kindWords(L.kind)} leak${rate} in ${slotsWords(L.slots)}${row}, named at ${L.namedAtS} s${L.recycled ? ', recycled' : ''}`;
}

/**
 * What a leak is made of and where, as inspect says it: the allocating sites (paths under `cwd`
 * shown relative to it), the growing handle types, the children's commands, and what holds it.
 */
export function leakDetails(L, cwd = null) {
  const out = [];
  if (L.kind === LEAK_KINDS.HANDLES && (L.types?.length || L.summary)) out.push(L.types?.length ? describeHandles(L.types) : L.summary);
  if (L.commands?.length) out.push(`commands: ${describeCommands(L.commands)}`);
  const sites = (L.sites ?? []).slice(0, SITES_SHOWN);
  sites.forEach((s, i) => {
    const share = sites.length > 1 && s.share != null ? ` (${Math.round(s.share * 100)} %)` : '';
    out.push(`${i ? 'and by' : 'allocated by'} ${describeSite(relativeSite(s, cwd))}${share}`);
  });
  if (!sites.length && L.sitesUnavailable) out.push(`the allocating code is not known: ${L.sitesUnavailable}`);
  if (L.holder) out.push(`held by ${describeHolder(L.holder)}`);
  return out;
}

// A file under the project is shown as the app's own line, "server.js:13", as a reader names it.
function relativeSite(s, cwd) {
  if (!cwd) return s;
  const rel = (f) => {
    if (typeof f !== 'string' || !path.isAbsolute(f)) return f;
    const r = path.relative(cwd, f);
    return r.startsWith('..') ? f : r;
  };
  return { ...s, file: rel(s.file), ...(s.via ? { via: { ...s.via, file: rel(s.via.file) } } : {}) };
}

/** A worker recycled for a memory limit: "slot 0 recycled at 95 s: rss 300 MiB > 256 MiB". */
export function memoryLine(m) {
  if (m.reason === 'oom-kill') return `slot ${m.slot} killed by the kernel's OOM killer at ${m.atS} s`;
  return `slot ${m.slot} recycled at ${m.atS} s for a memory limit: ${describeRecycle(m)}`;
}

const seconds = (s) => `${s} s`;

/** One note in words. */
export function noteText(n) {
  switch (n.code) {
    case 'too-short':
      return `too short to judge: ${seconds(n.ranS)} of load; at these settings a leak from boot is named by ${seconds(n.needS)} after ready. Run at least ${seconds(n.needS)}: --duration ${n.needS}s, or a longer load.`;
    case 'rising':
      return `too short to judge: the heap after GC of ${slotsWords(n.slots)} still rose at +${formatBytes(Math.round(n.heapPerSec * 60))}/min when the load ended, and no verdict had come; a warm-up stops rising, a leak does not. Run at least ${seconds(n.suggestS ?? n.ranS)} to settle it.`;
    case 'not-judged':
      return `not judged in a run this short: ${list(n.kinds.map(kindWords))} (named by the leak window's verdict, after ${seconds(n.needS)} at these settings)`;
    case 'leak-off':
      return 'leak detection is off (leak: false in the config): only memory limits were checked';
    case 'crash':
      return `slot ${n.slot}: pid ${n.pid} crashed at ${seconds(n.atS)} (${n.signal ?? `code ${n.exitCode}`}) and was restarted`;
    case 'below-baseline':
      return `slot ${n.slot}: over its ${n.reason} limit from its first samples: the limit is below the app's baseline`;
    case 'recycle-failed':
      return `slot ${n.slot}: a replacement was not ready in time at ${seconds(n.atS)}`;
    default:
      return n.code;
  }
}

/** The first line: what ran, under what load, for how long. */
export function headline(doc) {
  const load = doc.load ? `load: ${shorten(doc.load.command, 60)}` : 'no load command: the app\'s own traffic';
  const cap = doc.durationS != null ? ` (${doc.load ? 'at most ' : ''}${formatDuration(doc.durationS * 1000)})` : '';
  return `nodesup check: ${doc.workers} worker${doc.workers === 1 ? '' : 's'} of ${doc.script}, ${load}${cap}`;
}

function shorten(s, n) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** The report as lines of text (from the check's document: document.js), the headline first. */
export function reportLines(doc) {
  const lines = [headline(doc)];
  if (doc.startedAt !== null) {
    const requests = doc.requests != null ? `, ${doc.requests.toLocaleString('en-US')} requests answered by the app` : '';
    lines.push(`  … ${seconds(doc.ranS)} ${doc.load ? 'of load' : 'run on the app\'s own traffic'}${requests}`);
  }
  if (doc.failure) lines.push(`ERROR ${doc.failure.reason}`);
  for (const L of doc.leaks) lines.push(`FAIL  ${L.text}`, ...L.details.map((l) => `${INDENT}${l}`));
  for (const m of doc.memory) lines.push(`FAIL  ${m.text}`);
  const verdictNote = (n) => n.code === 'too-short' || n.code === 'rising';
  if (doc.result === 'pass') lines.push(`ok    no leak named in ${seconds(doc.ranS)} of load`);
  if (doc.result === 'too-short') lines.push(`ok    ${doc.notes.find(verdictNote).text}`);
  for (const n of doc.notes) if (!verdictNote(n)) lines.push(`note  ${n.text}`);
  return lines;
}
