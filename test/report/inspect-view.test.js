// The one inspect renderer: every section present, units right (counts are counts, sizes are
// sizes), parts as shares of RSS, nothing past 100 columns (or the terminal's width), unknowns as
// '-', and findings that agree with each other.
import test from 'ava';
import { inspectText, renderInspect } from '../../src/report/inspect-view.js';
import { heapSnapshotRefused } from '../../src/report/retainer-words.js';
import { visibleWidth } from '../../src/report/status/ansi.js';

const MiB = 1024 * 1024;
const T = 1_795_320_655_102;

/** A report as src/primary/inspect.js builds it, with round numbers. */
const REPORT = Object.freeze({
  slot: 0,
  pid: 23082,
  uptimeMs: 302_000,
  sample: {
    t: T, pid: 23082, rss: 200 * MiB, pss: 150 * MiB, anon: 120 * MiB, treeRss: 250 * MiB, treePss: 190 * MiB,
    childrenRss: 50 * MiB, children: 2, fds: 1234, heapUsed: 80 * MiB, heapTotal: 100 * MiB, heapLimit: 4096 * MiB,
    external: 30 * MiB, arrayBuffers: 10 * MiB, native: 70 * MiB, newSpace: 16 * MiB, gcCount: 57, gcMs: 812.5,
    majorGcCount: 3, elu: 0.125, delayP50: 0.42, delayP99: 23.7, requests: 4321, handles: 12, agent: true,
  },
  limits: { rss: 500 * MiB, heapUsed: 300 * MiB, native: null, totalRss: null, maxAge: 21_600_000, maxRequests: null, jitter: 0.1, sustain: 0 },
  heapSpaces: [
    { name: 'read_only_space', size: 0, used: 0, available: 0 },
    { name: 'new_space', size: 16 * MiB, used: 4 * MiB, available: 4 * MiB },
    { name: 'old_space', size: 70 * MiB, used: 63 * MiB, available: 1 * MiB },
    { name: 'code_space', size: 2 * MiB, used: 1.5 * MiB, available: 0 },
    { name: 'large_object_space', size: 12 * MiB, used: 11.5 * MiB, available: 0 },
  ],
  gcByKind: { minor: { count: 50, ms: 312.25 }, major: { count: 3, ms: 480 }, incremental: { count: 4, ms: 20.25 }, weakcb: { count: 0, ms: 0 } },
  gcShareLastMinute: 0.0312,
  resources: { TCPSocketWrap: 7, Timeout: 3, PipeWrap: 2 },
  execArgv: ['--max-semi-space-size=16', '--import', 'file:///x/src/worker/agent.js'],
  mappings: { anonymous: 132, v8Pages: 80, anonRss: 118 * MiB },
  trend: { rssPerSec: Math.round((3 * MiB) / 60), heapPerSec: Math.round((2 * MiB) / 60), rssLimitInSec: 5000 },
  step: { field: 'external', stepBytes: 40 * MiB, at: T - 125_000, from: 10 * MiB, to: 50 * MiB },
  leak: { kind: 'heap', field: 'heapUsed', growthBytesPerSec: (2 * MiB) / 60, r2: 0.97, projectedLimitInSec: 6600, windowMs: 300_000, confidence: 0.9 },
  advice: [
    { code: 'native-gap', message: 'RSS is 3.0× the V8 heap, 120 MiB outside it: native or fragmented; try a full GC or MALLOC_ARENA_MAX=2' },
    { code: 'fd-growth', message: '1234 open file descriptors: sockets or files may be leaking; check keep-alive agents and pools' },
  ],
});

const lineOf = (text, re) => text.split('\n').find((l) => re.test(l));

test('header: slot, pid, uptime and the node flags, without the agent preload', (t) => {
  const text = inspectText(REPORT);
  t.regex(text.split('\n')[0], /^nodesup inspect: slot 0 · pid 23082 · up 5m02s · 4321 requests$/);
  t.regex(text, /node flags: --max-semi-space-size=16\n/);
  t.notRegex(text, /agent\.js/);
});

test('breakdown: sizes in bytes, each part as a share of the tree RSS, limits with use', (t) => {
  const text = inspectText(REPORT);
  t.regex(lineOf(text, /^ {2}RSS, worker \+ children/), /250 MiB\s+100%\s+500 MiB \(50%\)$/);
  t.regex(lineOf(text, /^ {2}worker RSS/), /200 MiB\s+80%$/);
  t.regex(lineOf(text, /^ {2}PSS/), /190 MiB\s+76%$/);
  t.regex(lineOf(text, /^ {2}V8 heap used/), /80\.0 MiB\s+32%\s+300 MiB \(27%\)$/);
  t.regex(lineOf(text, /^ {2}V8 heap total/), /100 MiB\s+40%$/);
  t.regex(lineOf(text, /^ {2}V8 heap limit/), /4\.0 GiB\s+heap used 2\.0%$/);
  t.regex(lineOf(text, /^ {2}external/), /30\.0 MiB\s+12%$/);
  t.regex(lineOf(text, /of which arrayBuffers/), /10\.0 MiB\s+4\.0%$/);
  t.regex(lineOf(text, /^ {2}native/), /70\.0 MiB\s+28%$/);
  t.regex(lineOf(text, /^ {2}children \(2 processes\)/), /50\.0 MiB\s+20%$/);
  t.regex(text, /open file descriptors 1234 · active handles 12 \(TCPSocketWrap 7, Timeout 3, PipeWrap 2\)/);
});

test('counts are counts, never bytes (the old generic dump printed "anonymous 132 B")', (t) => {
  const text = inspectText(REPORT);
  t.notRegex(text, /\b(132|80|1234|12|57|50|3) B\b/);
  t.regex(text, /132 anonymous, 80 of them V8's 256 KiB pages · anonymous RSS 118 MiB/);
});

test('heap spaces: size, used and share; empty spaces left out but counted', (t) => {
  const text = inspectText(REPORT);
  t.regex(lineOf(text, /^ {2}new_space/), /16\.0 MiB\s+4\.0 MiB\s+25%$/);
  t.regex(lineOf(text, /^ {2}old_space/), /70\.0 MiB\s+63\.0 MiB\s+90%$/);
  t.falsy(lineOf(text, /read_only_space/));
  t.regex(text, /\(1 empty space not shown\)/);
});

test('GC by kind, GC share, event loop', (t) => {
  const text = inspectText(REPORT);
  t.regex(lineOf(text, /^ {2}minor \(scavenge\)/), /50\s+312 ms$/);
  t.regex(lineOf(text, /^ {2}major \(mark-compact\)/), /3\s+480 ms$/);
  t.regex(text, /GC share of wall time, last minute: 3\.1% · total 57 GCs, 813 ms/);
  t.regex(text, /utilization 13% · delay p50 0\.42 ms · p99 24 ms/);
  t.regex(lineOf(text, /^ {2}weak callbacks/), /0\s+0 ms$/);
});

test('trend, findings and advice in plain words', (t) => {
  const text = inspectText(REPORT);
  t.regex(text, /RSS \+3\.0 MiB\/min · heap baseline \+2\.0 MiB\/min · rss limit reached in 1h23m/);
  t.regex(text, /leak \(heap\): V8 heap grows \+2\.0 MiB\/min over 5m00s \(r² 0\.97\), limit reached in 1h50m/);
  t.regex(text, /step: external memory rose 40\.0 MiB \(10\.0 MiB → 50\.0 MiB\), 2m05s ago and stayed/);
  t.regex(text, /Advice\n {2}• RSS is 3\.0× the V8 heap/);
  t.regex(text, /• 1234 open file descriptors/);
});

test('plain text within 100 columns, sections in order, one trailing newline', (t) => {
  const text = inspectText({ ...REPORT, heapSnapshot: { file: '/tmp/x.heapsnapshot' } });
  t.true(text.endsWith('\n') && !text.endsWith('\n\n'));
  t.notRegex(text, /\x1b\[/);
  for (const line of text.split('\n')) t.true(line.length <= 100, line);
  const order = ['Memory', 'Heap spaces', 'GC', 'Event loop', 'Mappings', 'Trend (last minute)', 'Findings', 'Advice'].map((h) => text.indexOf(`\n${h}\n`));
  t.deepEqual([...order].sort((a, b) => a - b), order);
  t.false(order.includes(-1));
  t.regex(text, /Heap snapshot written to \/tmp\/x\.heapsnapshot\n$/);
});

test('long advice wraps under its bullet', (t) => {
  const long = { code: 'x', message: `${'word '.repeat(40)}end` };
  const text = inspectText({ ...REPORT, advice: [long] });
  const lines = text.split('\n').slice(text.split('\n').indexOf('Advice') + 1).filter(Boolean);
  t.true(lines.length >= 3);
  t.regex(lines[0], /^ {2}• word/);
  t.regex(lines[1], /^ {4}word/);
});

test('a report with unknowns (agent silent, no smaps, no history) prints dashes, not zeros', (t) => {
  const text = inspectText({ slot: 1, pid: 99, uptimeMs: 1500, sample: { t: T, rss: 50 * MiB, treeRss: null, heapUsed: null, fds: null },
    limits: { rss: null }, heapSpaces: null, gcByKind: null, gcShare: null, resources: null, execArgv: null, mappings: null,
    trend: { rssPerSec: null, heapPerSec: null, rssLimitInSec: null }, step: null, leak: null, advice: [] });
  t.regex(lineOf(text, /^ {2}RSS, worker \+ children/), /50\.0 MiB\s+100%$/);
  t.regex(lineOf(text, /^ {2}V8 heap used/), /-\s+-$/);
  t.regex(text, /open file descriptors - · active handles -/);
  t.regex(text, /smaps not readable/);
  t.regex(text, /RSS - · heap baseline - · rss limit reached in -/);
  t.regex(text, /no leak and no step change/);
  t.regex(text, /nothing to advise/);
  t.notRegex(text, /undefined|NaN|null/);
});

test('no report at all', (t) => {
  t.is(inspectText(null), 'inspect: no report\n');
});

// The findings, worded from the data: one story, never "no leak" beside a leak or a suspicion.
const NONE = { leak: null, step: null, sites: { sites: null, points: 0, profiler: null } };
const HEAP_BY_WINDOW = { kind: 'heap', field: 'heapFloor', growthBytesPerSec: MiB / 60, r2: 0.95, projectedLimitInSec: 600, windowMs: 300_000 };
const FINDINGS = [
  ['nothing found', NONE, [/no leak and no step change in the window/], [/suspected|retain|leak \(/]],
  ['a suspected heap leak being confirmed (the contradiction seen with a real app)', { ...NONE, sites: { sites: null, points: 3, profiler: null } },
    [/heap leak suspected, not confirmed yet: 3 points of the heap after a full GC so far/], [/no leak/, /leak \(/]],
  ['a suspicion where the profiler cannot run', { ...NONE, sites: { sites: null, points: 1, profiler: 'the worker runs with --inspect; the heap profiler is left to the debugger' } },
    [/suspected, not confirmed yet: 1 point of/, /retaining code not known: the worker runs with --inspect/], [/no leak/]],
  ['a heap leak read from the polled floor, no profile', { ...NONE, leak: HEAP_BY_WINDOW },
    [/leak \(heap\): V8 heap after GC grows \+1\.0 MiB\/min over 5m00s/, /retaining code not named: the sampling heap profiler runs only while/], [/no leak/, /suspected/]],
  ['a confirmed heap leak with its sites', { ...NONE, leak: { ...HEAP_BY_WINDOW, confirm: { forcedGcs: 2, maxPauseMs: 12 } },
    sites: { sites: [{ fn: 'cacheUser', file: 'users.js', line: 4, bytesPerMin: MiB, share: 0.9 }], points: 4, profiler: null } },
    [/heap after a full GC \(2 forced, longest pause 12 ms\)/, /retained by:\n {4}cacheUser \(users\.js:4\) \+1\.0 MiB\/min, 90 %/], [/no leak/, /suspected/, /not named|not known/]],
  ['a native leak: the heap profiler is not its business', { ...NONE, leak: { ...HEAP_BY_WINDOW, kind: 'native', field: 'native' } },
    [/leak \(native\): native memory grows/], [/no leak/, /retain/]],
  ['a step alone', { ...NONE, step: REPORT.step }, [/step: external memory rose/], [/no leak/, /suspected/]],
  ['a handles leak, worded from its types (the fds said apart: the sockets are counted as TCPSocketWrap)', { ...NONE, leak: { kind: 'handles', growthPerSec: 12, r2: 0.99,
    types: [{ type: 'TCPSocketWrap', perSec: 12, count: 360 }, { type: 'fd', perSec: 12, count: 382, kinds: [{ what: 'TCP to 127.0.0.1:4000, ESTABLISHED', count: 360, perSec: 12 }] }] } },
  [/leak \(handles\): TCPSocketWrap \+12\/s; fds: TCP to 127\.0\.0\.1:4000, ESTABLISHED \+12\/s \(360 open\)\s+\(r² 0\.99\)/], [/no leak/, /fd \+12/]],
];
for (const [name, data, present, absent] of FINDINGS) {
  test(`findings: ${name}`, (t) => {
    const text = inspectText({ ...REPORT, ...data });
    const findings = text.slice(text.indexOf('\nFindings\n') + 1, text.indexOf('\nAdvice\n'));
    for (const re of present) t.regex(findings, re);
    for (const re of absent) t.notRegex(findings, re);
  });
}

test('the overlay: the terminal width, bold titles with colour, text from the app cleaned', (t) => {
  const report = { ...REPORT, leak: null, sites: { sites: [{ fn: 'evil\x1b[2J', file: 'a\nb.js', line: 1, bytesPerMin: MiB, share: 1 }], points: 4, profiler: null } };
  const plain = renderInspect(report, { width: 60 });
  for (const l of plain) t.true(visibleWidth(l) <= 60, l);
  t.false(plain.some((l) => /[\x00-\x08\x0a-\x1f]/.test(l)), 'no control characters from the app');
  t.true(plain.includes('Findings'));
  const colored = renderInspect(report, { width: 60, color: true });
  t.true(colored.includes('\x1b[1mFindings\x1b[22m'));
  t.is(colored.length, plain.length);
  t.deepEqual(renderInspect(null, { width: 20 }), ['inspect: no report']);
});

test('an external leak found on points after GC, with a library site: said as such, in words', (t) => {
  const out = inspectText({
    ...REPORT,
    leak: { kind: 'external', field: 'externalAfterGc', growthBytesPerSec: MiB / 60, r2: 0.99, projectedLimitInSec: null, windowMs: 60_000, confirm: { points: 4, forcedGcs: 4, maxPauseMs: 12, pauseMs: 40 } },
    sites: { sites: [{ fn: 'set', file: 'node_modules/some-store/lib/memory.js', line: 3, package: 'some-store@2.3.1', via: { file: 'server.js', line: 9 }, bytesPerMin: MiB, share: 1 }], why: null },
  });
  t.regex(out, /leak \(external\): external memory after two full GCs \(4 forced, longest pause 12 ms\) grows/);
  t.regex(out, /\n {4}some-store@2\.3\.1 set, reached from server\.js:9 /);
});

test('a refused heap snapshot says what is short, by how much, and the cheaper way', (t) => {
  t.is(heapSnapshotRefused({ ok: false, code: 'memory', needBytes: 150 * MiB, haveBytes: 100 * 1024 }, 0),
    'heap snapshot refused: it needs ~150 MiB of memory and only 100 KiB is left before the memory limit; `nodesup inspect 0` names the code that retains memory from the sampling heap profile, at a fraction of the cost');
  t.regex(heapSnapshotRefused({ ok: false, code: 'disk', needBytes: 200 * MiB, haveBytes: 150 * MiB }, 2), /^heap snapshot refused: the file needs ~200 MiB and only 150 MiB is free on its disk; `nodesup inspect 2` names/);
  t.regex(heapSnapshotRefused({ ok: false, code: 'heap-unknown' }, 1), /^heap snapshot refused: the worker has not reported its heap yet; /);
});

test('findings: what held the slot\'s leak, from the heap snapshot of the worker it replaced, with its share and age', (t) => {
  const held = [{ bytes: 40 * 1024 * 1024, share: 0.93, count: 12004, type: 'IncomingMessage', path: ['(module) app.js', 'recentRequests', 'Array'], holder: { name: 'recentRequests', file: 'app.js', line: 11 } }];
  const text = inspectText({ ...REPORT, retainers: { pid: 4242, at: REPORT.sample.t - 180_000, held } });
  t.regex(text, /held by \(the heap snapshot of pid 4242, the worker it replaced, 3m00s ago\):\n {4}recentRequests \(Array of 12,004 IncomingMessage\) declared at app\.js:11, 93 % of the growth/);
  t.notRegex(inspectText(REPORT), /held by \(/);
});
