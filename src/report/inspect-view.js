// One worker's inspect report as lines of text: the one renderer, for `nodesup inspect` (plain, it
// may be piped, 100 columns) and the status screen's overlay (the terminal's width, colour). The
// report's shape is src/primary/inspect.js's; anything unknown prints as '-'. Its findings are worded
// here, once, from the report's data, so that they agree with each other.
import { formatBytes, formatDuration } from '../units.js';
import { clean, paint, truncate, wrap } from './status/ansi.js';
import { adviceText } from './advice-words.js';
import { describeSite } from './site-words.js';
import { describeHandles } from './resource-words.js';
import { describeHolder } from './retainer-words.js';
import { memoryOf } from '../sample/memory-of.js';
import { GC_GLOBAL } from '../constants.js';

const WIDTH = 100; // the CLI's, and the most any line is wrapped to
const MIN = 60;
const known = (v) => v !== null && v !== undefined && Number.isFinite(v);
const dash = (v, f = String) => (known(v) ? f(v) : '-');
const bytes = (v) => dash(v, formatBytes);
const pct = (part, whole) => (known(part) && known(whole) && whole > 0 ? share(part / whole) : '-');
const ms = (v) => dash(v, (x) => (x === 0 ? '0 ms' : x < 10 ? `${x.toFixed(2)} ms` : `${Math.round(x)} ms`));
const perMin = (perSec) => dash(perSec, (x) => `${x >= 0 ? '+' : '-'}${formatBytes(Math.abs(x) * MIN)}/min`);
const secs = (s) => dash(s, (x) => (x === 0 ? 'now' : formatDuration(x * 1000)));
const r2 = (v) => dash(v, (x) => x.toFixed(2));

function share(f) {
  if (!known(f)) return '-';
  const p = f * 100;
  return p > 0 && p < 9.95 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`;
}

// Words for the sample fields the detectors name.
const FIELD_NAMES = {
  treeRss: 'RSS (tree)', rss: 'RSS', heapUsed: 'V8 heap', heapFloor: 'V8 heap after GC', heapTotal: 'V8 heap total',
  external: 'external memory', childrenRss: 'child processes', native: 'native memory',
};

const GC_KINDS = { minor: 'minor (scavenge)', major: 'major (mark-compact)', incremental: 'incremental marking', weakcb: 'weak callbacks' };

/** Columns padded to widths; the first left-aligned, the rest right-aligned. */
function table(rows, widths, indent = '  ') {
  return rows.map((r) => `${indent}${r.map((c, i) => (i === 0 ? clean(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ')}`.trimEnd());
}

// A line longer than w wraps, its continuation lines indented under its text.
const fit = (w) => (line) => {
  if (line.length <= w) return [line];
  const indent = /^ */.exec(line)[0];
  return wrap(line, w - indent.length - 2).map((x, i) => `${indent}${i ? '  ' : ''}${x}`);
};

function header(r, w) {
  const s = r.sample ?? {};
  const parts = [`nodesup inspect: slot ${dash(r.slot)}`, `pid ${dash(r.pid)}`, `up ${dash(r.uptimeMs, formatDuration)}`];
  if (known(s.requests)) parts.push(`${s.requests} requests`);
  // Without the flags nodesup adds (src/primary/lifecycle/agent-args.js).
  const flags = (r.execArgv ?? []).filter((a, i, all) => a !== '--import' && all[i - 1] !== '--import' && a !== `--expose-gc-as=${GC_GLOBAL}`);
  const lines = [parts.join(' · ')];
  if (flags.length) lines.push(...wrap(`node flags: ${flags.join(' ')}`, w));
  return lines;
}

function breakdown(r, w) {
  const s = r.sample ?? {};
  const l = r.limits ?? {};
  const total = memoryOf(s);
  const limit = (v, lim) => (known(lim) ? `${formatBytes(lim)} (${pct(v, lim)})` : '');
  const rows = [
    ['part', 'size', 'of RSS', 'limit (used)'],
    ['RSS, worker + children', bytes(total), known(total) ? '100%' : '-', limit(total, l.rss)],
    ['worker RSS', bytes(s.rss), pct(s.rss, total), ''],
    ['PSS, worker + children', bytes(s.treePss ?? s.pss), pct(s.treePss ?? s.pss, total), ''],
    ['V8 heap used', bytes(s.heapUsed), pct(s.heapUsed, total), limit(s.heapUsed, l.heapUsed)],
    ['V8 heap total', bytes(s.heapTotal), pct(s.heapTotal, total), ''],
    ['V8 heap limit', bytes(s.heapLimit), '', known(s.heapLimit) ? `heap used ${pct(s.heapUsed, s.heapLimit)}` : ''],
    ['external (Buffers etc.)', bytes(s.external), pct(s.external, total), ''],
    ['  of which arrayBuffers', bytes(s.arrayBuffers), pct(s.arrayBuffers, total), ''],
    ['native (RSS − heap − ext.)', bytes(s.native), pct(s.native, total), limit(s.native, l.native)],
    [`children (${dash(s.children)} processes)`, bytes(s.childrenRss), pct(s.childrenRss, total), ''],
  ];
  const res = r.resources ? Object.entries(r.resources).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${clean(k)} ${n}`).join(', ') : '';
  return [
    'Memory',
    ...table(rows, [28, 10, 7, 22]),
    `  open file descriptors ${dash(s.fds)} · active handles ${dash(s.handles)}${res ? ` (${res})` : ''}`,
  ].flatMap(fit(w));
}

function heapSpaces(r) {
  if (!Array.isArray(r.heapSpaces)) return ['Heap spaces', '  -'];
  const shown = r.heapSpaces.filter((x) => x.size > 0);
  const rows = [['space', 'size', 'used', 'used %'], ...shown.map((x) => [x.name, bytes(x.size), bytes(x.used), pct(x.used, x.size)])];
  const empty = r.heapSpaces.length - shown.length;
  const note = empty ? [`  (${empty} empty space${empty === 1 ? '' : 's'} not shown)`] : [];
  return ['Heap spaces', ...table(rows, [26, 10, 10, 7]), ...note];
}

function gc(r) {
  const out = ['GC'];
  const kinds = r.gcByKind ? Object.entries(r.gcByKind) : [];
  if (kinds.length) {
    const rows = [['kind', 'count', 'time'], ...kinds.map(([k, v]) => [GC_KINDS[k] ?? k, dash(v?.count), ms(v?.ms)])];
    out.push(...table(rows, [26, 10, 10]));
  }
  const s = r.sample ?? {};
  out.push(`  GC share of wall time, last minute: ${share(r.gcShareLastMinute ?? r.gcShare)} · total ${dash(s.gcCount)} GCs, ${ms(s.gcMs)}`);
  return out;
}

function eventLoop(r) {
  const s = r.sample ?? {};
  return ['Event loop', `  utilization ${share(s.elu)} · delay p50 ${ms(s.delayP50)} · p99 ${ms(s.delayP99)}`];
}

function mappings(r) {
  const m = r.mappings;
  if (!m) return ['Mappings', '  - (smaps not readable)'];
  return ['Mappings', `  ${dash(m.anonymous)} anonymous, ${dash(m.v8Pages)} of them V8's 256 KiB pages · anonymous RSS ${bytes(m.anonRss)}`];
}

function trend(r) {
  const t = r.trend ?? {};
  return ['Trend (last minute)',
    `  RSS ${perMin(t.rssPerSec)} · heap baseline ${perMin(t.heapPerSec)} · rss limit reached in ${secs(t.rssLimitInSec)}`];
}

function leakLine(L) {
  if (L.kind === 'handles') return `  leak (handles): ${clean(Array.isArray(L.types) ? describeHandles(L.types) : L.summary) || '-'} (r² ${r2(L.r2)})`;
  const after = L.kind === 'external' ? 'external memory after two full GCs' : 'heap after a full GC';
  const what = L.confirm ? `${after} (${L.confirm.forcedGcs} forced, longest pause ${dash(L.confirm.maxPauseMs)} ms)` : FIELD_NAMES[L.field] ?? (clean(L.field) || 'memory');
  const over = known(L.windowMs) ? ` over ${formatDuration(L.windowMs)}` : '';
  return `  leak (${clean(L.kind)}): ${what} grows ${perMin(L.growthBytesPerSec)}${over} (r² ${r2(L.r2)}), limit reached in ${secs(L.projectedLimitInSec)}`;
}

// One story from the data: a leak (named, or suspected and being confirmed), then where it is
// retained, then a step; "no leak" only when none of them is there.
function findings(r) {
  const L = r.leak ?? null;
  const points = r.sites?.points ?? 0;
  const suspected = !L && points > 0;
  const heap = L?.kind === 'heap' || suspected;
  const out = [];
  if (L) out.push(leakLine(L));
  if (suspected) {
    out.push(`  heap leak suspected, not confirmed yet: ${points} point${points === 1 ? '' : 's'} of the heap after a full GC so far; a verdict names the retaining code`);
  }
  const sites = r.sites?.sites ?? L?.sites ?? null;
  const unavailable = r.sites?.profiler ?? L?.sitesUnavailable ?? null;
  if (sites?.length) {
    out.push('  retained by:');
    for (const s of sites) out.push(`    ${clean(describeSite(s))} ${perMin(s.bytesPerMin / 60)}, ${Math.round(s.share * 100)} %`);
  } else if (heap && unavailable) {
    out.push(`  retaining code not known: ${clean(unavailable)}`);
  } else if (L?.kind === 'heap') {
    out.push('  retaining code not named: the sampling heap profiler runs only while a heap leak is being confirmed');
  }
  if (r.retainers?.held?.length) {
    const ago = known(r.retainers.at) && known(r.sample?.t) ? `, ${formatDuration(Math.max(0, r.sample.t - r.retainers.at))} ago` : '';
    out.push(`  held by (the heap snapshot of pid ${r.retainers.pid}, the worker it replaced${ago}):`);
    for (const h of r.retainers.held.slice(0, 3)) out.push(`    ${clean(describeHolder(h))}, ${h.share != null && h.share <= 1.5 ? `${Math.round(Math.min(1, h.share) * 100)} % of the growth` : bytes(h.bytes)}`);
  }
  if (r.step) {
    const S = r.step;
    const ago = known(S.at) && known(r.sample?.t) ? `, ${formatDuration(Math.max(0, r.sample.t - S.at))} ago` : '';
    out.push(`  step: ${FIELD_NAMES[S.field] ?? clean(S.field)} rose ${bytes(S.stepBytes)} (${bytes(S.from)} → ${bytes(S.to)})${ago} and stayed`);
  }
  if (!L && !suspected && !r.step && !r.retainers?.held?.length) out.push('  no leak and no step change in the window');
  return ['Findings', ...out];
}

function advice(r, w) {
  const items = Array.isArray(r.advice) ? r.advice : [];
  if (!items.length) return ['Advice', '  nothing to advise'];
  return ['Advice', ...items.flatMap((a) => wrap(typeof a === 'string' ? a : a?.message ?? adviceText(a), w - 4).map((l, i) => (i ? `    ${l}` : `  • ${l}`)))];
}

/**
 * The report as lines: wrapped to `width` (at most 100 columns), every line cut to it, section
 * titles bold with `color`.
 */
export function renderInspect(report, { width = WIDTH, color = false } = {}) {
  const cols = Math.max(1, Math.floor(width || WIDTH));
  if (!report || typeof report !== 'object') return [truncate('inspect: no report', cols)];
  const w = Math.max(40, Math.min(WIDTH, cols));
  const sections = [header(report, w), breakdown(report, w), heapSpaces(report), gc(report), eventLoop(report),
    mappings(report), trend(report), findings(report).flatMap(fit(w)), advice(report, w)];
  if (report.heapSnapshot?.file) sections.push([`Heap snapshot written to ${clean(report.heapSnapshot.file)}`]);
  if (report.profile?.file) {
    const p = report.profile;
    sections.push([`Profile (${p.format}, ${p.sites} site${p.sites === 1 ? '' : 's'}${p.inuse ? '' : ', growth only: no sampler runs now'}) written to ${clean(p.file)}`]);
  }
  const lines = sections.flatMap((s, i) => [...(i ? [''] : []), paint(s[0], 'bold', color), ...s.slice(1)]);
  return lines.map((l) => truncate(l, cols));
}

/** The report as text for a terminal or a pipe, ending in one newline. */
export const inspectText = (report) => `${renderInspect(report).join('\n')}\n`;
