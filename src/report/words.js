// The words of every event, made once and only here: decisions and the code that acts put data on
// the event stream, and the log (and any view that quotes an event) words it from its fields, so a
// message can never contradict the fields beside it.
import { EVENTS, LEAK_KINDS, MEMORY_REASONS, REASONS } from '../constants.js';
import { formatBytes, formatDuration } from '../units.js';
import { clean } from './plain-text.js';
import { growthPerMinute } from './status/status-columns.js';
import { adviceText } from './advice-words.js';
import { describeSite } from './site-words.js';
import { describeHandles, describeCommands } from './resource-words.js';
import { describeRetainers } from './retainer-words.js';
import { failureWords, heldByWords, reloadSummary } from './control-words.js';

// The one wording of a site: the log and the status pane name a leak's site alike.
export { describeSite };

/**
 * A recycle's reason and numbers: "rss 300 MiB > 256 MiB". A predictive recycle replaced the worker
 * before its crossing, so its value may be under its limit: it says so instead of ">".
 */
export function describeRecycle(ev) {
  const { reason, value = null, limit = null } = ev;
  const fmt = MEMORY_REASONS.has(reason) ? formatBytes
    : reason === REASONS.LEAK ? growthPerMinute
      : reason === REASONS.MAX_AGE || reason === REASONS.UNRESPONSIVE ? formatDuration
        : String;
  if (ev.predictive && value != null && limit != null) {
    return value < limit ? `${clean(reason)} ${fmt(value)}, replaced before its crossing of ${fmt(limit)}`
      : `${clean(reason)} ${fmt(value)} > ${fmt(limit)}, its replacement ready before the crossing`;
  }
  const numbers = value != null ? ` ${fmt(value)}${limit != null ? ` > ${fmt(limit)}` : ''}` : '';
  return `${clean(reason ?? '?')}${numbers}`;
}

/** A named leak in a few words: "heap grows 2.0 MiB/min, mostly from cachePage (lib/pages.js:9)". */
export function describeLeak(leak) {
  if (leak.kind === LEAK_KINDS.HANDLES) return `handles leak: ${leak.summary ?? describeHandles(leak.types ?? [])}`;
  const site = leak.sites?.[0];
  const where = site ? `, mostly from ${describeSite(site)}` : leak.commands?.length ? `, left running: ${describeCommands(leak.commands.slice(0, 1))}` : '';
  const rate = `${formatBytes(Math.round((leak.growthBytesPerSec ?? 0) * 60))}/min`;
  if (leak.workersInRow) return `${leak.workersInRow} workers in a row filled at ~${rate} (${leak.kind})${where}`;
  return `${leak.kind} grows ${rate}${where}`;
}

/** What a memory recycle retained, in words: "heap +126 MiB/min, mostly from cachePage (lib/pages.js:9)". */
export function describeRetained(r) {
  if (!r) return '';
  const rate = r.bytesPerMin != null ? ` +${formatBytes(r.bytesPerMin)}/min` : '';
  const site = r.sites?.[0];
  return `${r.kind}${rate}${site ? `, mostly from ${describeSite(site)}` : ''}`;
}

const WORDS = {
  [EVENTS.SUPERVISOR_START]: (f) => `nodesup: ${f.workers} workers of ${f.script}${limitsWords(f.limits)}`,
  [EVENTS.SUPERVISOR_STOP]: (f) => `nodesup stopped${f.durationMs != null ? ` in ${seconds(f.durationMs)}` : ''}`,
  [EVENTS.WORKER_SPAWN]: (f) => `slot ${f.slot}: spawned pid ${f.pid} (${f.cause})${f.pinned ? `, running ${f.script}, the code that serves, since a reload failed` : ''}`,
  [EVENTS.WORKER_READY]: (f) => `slot ${f.slot}: pid ${f.pid} ready${f.startupMs != null ? ` in ${seconds(f.startupMs)}` : ''}`,
  [EVENTS.WORKER_RECYCLE]: (f) => `slot ${f.slot} pid ${f.pid} recycled: ${describeRecycle(f)}${f.kind ? ` (${f.kind})` : ''}${f.retained ? `; retained ${describeRetained(f.retained)}` : ''}`,
  [EVENTS.WORKER_GC]: (f) => `slot ${f.slot}: full GC ${f.stillOver ? 'did not bring it under' : 'brought it under'} the ${f.reason} limit${f.rssBefore != null && f.rssAfter != null ? ` (rss ${formatBytes(f.rssBefore)} → ${formatBytes(f.rssAfter)})` : ''}`,
  [EVENTS.WORKER_EXIT]: (f) => `slot ${f.slot}: pid ${f.pid} exited (${f.signal ?? f.code})${f.drainMs != null ? (f.forced ? `, killed after ${seconds(f.drainMs)}` : ` after draining ${seconds(f.drainMs)}`) : ''}${heldBy(f.heldBy)}${f.oomKill ? ', killed by the kernel\'s OOM killer' : ''}${f.crashedInDrain ? ': it died while draining, its connections cut (the app\'s own error; its stderr says which)' : ''}`,
  [EVENTS.WORKER_RETAINERS]: (f) => `slot ${f.slot} pid ${f.pid}: ${describeRetainers(f)}`,
  [EVENTS.WORKER_RESTART]: (f) => `slot ${f.slot}: restarting in ${f.delayMs} ms`,
  [EVENTS.RECYCLE_FAILED]: (f) => (f.cancelled ? `slot ${f.slot}: recycle cancelled by the stop`
    : `slot ${f.slot}: ${f.exitCode !== undefined || f.signal ? failureWords({ why: 'exited', code: f.exitCode, signal: f.signal }) : `replacement not ready within ${seconds(f.readyTimeoutMs ?? 0)} (readyTimeout)`}; the old worker keeps serving`),
  [EVENTS.RECYCLE_SKIPPED]: (f) => `slot ${f.slot}: the predicted ${f.reason} crossing did not come; the early replacement is retired`,
  [EVENTS.LEAK_WARNING]: (f) => `slot ${f.slot}: ${describeLeak(f)}`,
  [EVENTS.LEAK_SUSPECTED]: (f) => `slot ${f.slot}: pid ${f.pid}'s ${[f.heap && 'heap', f.external && 'external memory'].filter(Boolean).join(' and ')} rose; checking with full GCs${f.heap && !f.reference ? ' and the sites\' profiler' : ''}`,
  [EVENTS.LEAK_CLEARED]: (f) => `slot ${f.slot}: pid ${f.pid}'s ${f.confirmed ? 'named leak stopped rising' : 'suspected leak cleared'} (${f.points ?? 0} point(s) in ${seconds(f.durationMs ?? 0)}, ${f.forcedGcs ?? 0} forced GC(s))`,
  [EVENTS.LIMIT_BELOW_BASELINE]: (f) => `slot ${f.slot}: over the ${f.reason} limit right after start; the limit is below the app's baseline. Holding recycles for ${f.holdMs} ms`,
  [EVENTS.CONFIG_RELOAD]: (f) => `config reloaded${f.changed?.length ? `: ${f.changed.join(', ')}` : ' (unchanged)'}${f.applied === 'rolling' ? '; rolling the workers' : '; applied live'}`,
  [EVENTS.ADVICE]: (f) => adviceText(f),
  [EVENTS.CONFIG_INVALID]: (f) => `config not reloaded, the running one stays: ${f.error}`,
  [EVENTS.RELOAD]: (f) => `reload${f.by && f.by !== 'control' ? ` (${f.by})` : ''} ${reloadSummary({ workers: 0, reloaded: 0, ...f }).join('; ')}`,
  [EVENTS.CONFIG_DEFAULT]: (f) => configDefault(f),
};

// A default decided at start, with why and how to choose otherwise.
function configDefault(f) {
  if (f.key === 'balance' && f.requested) {
    return `balance: '${f.value}', not '${f.requested}': ${f.detail}; '${f.requested}' needs Node 22.12 or later and net.ipv4.tcp_migrate_req=1`;
  }
  if (f.key === 'balance') {
    return `balance: '${f.value}', since ${f.packageJson ?? 'package.json'} depends on ${f.dependency} (long-polling needs each client on one worker); set balance: 'round-robin' to choose`;
  }
  const parts = `the container's ${formatBytes(f.cgroupMemoryLimit)} less the primary's ${formatBytes(f.primaryRss)} and a ${formatBytes(f.margin)} margin`;
  if (f.value === null) {
    return `no memory limit set, and ${parts} leaves no room for ${f.workers} workers: no default limit; set limits.rss, or run fewer workers`;
  }
  return `no memory limit set: the workers are recycled past ${formatBytes(f.value)} together (${parts}), before the kernel's OOM killer; set limits.totalRss or limits.rss to choose`;
}

// "1.1 s": the durations a person reads in a log line.
function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

// The limits the config sets, for the start line: " (rss 128 MiB, max age 6h)".
function limitsWords(limits) {
  if (!limits) return '';
  const parts = [];
  for (const [key, name] of [['rss', 'rss'], ['heapUsed', 'heap'], ['native', 'native'], ['totalRss', 'total rss']]) {
    if (typeof limits[key] === 'number') parts.push(`${name} ${formatBytes(limits[key])}`);
  }
  if (typeof limits.maxAge === 'number') parts.push(`max age ${formatDuration(limits.maxAge)}`);
  if (typeof limits.maxRequests === 'number') parts.push(`max ${limits.maxRequests} requests`);
  return parts.length ? ` (${parts.join(', ')})` : ' (no limits set)';
}

// What kept a forced worker alive, when the agent could tell (primary/recycle/held-by.js asks it).
const heldBy = (held) => (held ? `, ${heldByWords(held)}` : '');

/** The message of an event line, from its fields alone. */
export function messageFor(fields) {
  const words = WORDS[fields.event];
  return words ? words(fields) : (fields.event ?? '');
}
