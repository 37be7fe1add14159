// The check's document, its text and its JUnit XML, from verdicts made by the real verdict
// function: the words come from the report layer, and every JUnit document is valid under the
// vendored schema whatever the app, the load command or a site's name holds.
import test from 'ava';
import { verdictOf } from '../../src/check/verdict.js';
import { checkDocument } from '../../src/check/document.js';
import { reportLines } from '../../src/check/report-text.js';
import { describeHolder } from '../../src/report/retainer-words.js';
import { junitXml, xmlEscape, testcases } from '../../src/check/junit.js';
import { describeSite } from '../../src/report/site-words.js';
import { junitErrors } from './validate-junit.js';

const MiB = 1024 * 1024;
const T0 = 1_800_000_000_000;
const s = (sec) => T0 + sec * 1000;
const config = { leak: { window: 300_000, minGrowth: MiB / 60, warmUp: 150_000 }, pollInterval: 1000 };
const ready = (slot) => ({ event: 'worker.ready', slot, pid: 100 + slot, time: s(0) });
const site = { fn: 'send', file: '/app/node_modules/express/lib/response.js', line: 9, package: 'express@5.3.0', via: { file: '/app/server.js', line: 13 }, bytesPerMin: 9 * MiB, share: 1 };
const heap = (slot, at, extra = {}) => ({ event: 'leak.warning', slot, pid: 100 + slot, kind: 'heap', growthBytesPerSec: Math.round((9.3 * MiB) / 60), sites: [site], time: s(at), ...extra });
const facts = { script: 'server.js', name: 'server-check', workers: 2, durationS: 240, requests: 1204331, workerPids: [100, 101], cwd: '/app' };
const load = { command: 'npx autocannon -d 240 -c 20 http://127.0.0.1:3000/api/orders', pid: 7, exitCode: 0, signal: null, stopped: false };

function docOf(events, o = {}) {
  const { startedAt = s(0), endedAt = s(240), failure = null, judgements = null } = o;
  const v = verdictOf({ events, judgements, config, startedAt, endedAt, failure });
  return checkDocument(v, { ...facts, load, startedAt, endedAt, ...o.facts });
}

test('a leak reads as the issue shows it: kind, rate, slots, when, the site in inspect\'s words, the holder', (t) => {
  const holder = { bytes: 50e6, share: 0.9, count: 12004, type: 'IncomingMessage', path: ['(module) server.js', 'recentRequests', 'Array'], holder: { name: 'recentRequests', file: 'server.js', line: 11 } };
  const doc = docOf([ready(0), ready(1), heap(0, 168, { holder }), heap(1, 170)]);
  const lines = reportLines(doc);
  t.is(lines[0], 'nodesup check: 2 workers of server.js, load: npx autocannon -d 240 -c 20 http://127.0.0.1:3000/api/orders (at most 4m00s)');
  t.is(lines[1], '  … 240 s of load, 1,204,331 requests answered by the app');
  t.is(lines[2], 'FAIL  heap leak +9.3 MiB/min in slot 0 and slot 1, named at 168 s');
  // The one wording of a site (report/site-words.js), its paths shown under the project directory.
  t.is(lines[3], `      allocated by ${describeSite({ ...site, file: 'node_modules/express/lib/response.js', via: { file: 'server.js', line: 13 } })}`);
  t.is(lines[3], '      allocated by express@5.3.0 send, reached from server.js:13');
  t.is(lines[4], '      held by recentRequests (Array of 12,004 IncomingMessage) declared at server.js:11');
  t.like(doc, { result: 'fail', exitCode: 1, check: 1 });
  t.is(doc.leaks[0].text, 'heap leak +9.3 MiB/min in slot 0 and slot 1, named at 168 s');
});

test('handles and children are said by the report layer\'s words for them', (t) => {
  const doc = docOf([ready(0),
    { event: 'leak.warning', kind: 'handles', slot: 0, pid: 100, growthPerSec: 15, types: [{ type: 'TCPSocketWrap', perSec: 10, count: 300 }, { type: 'Timeout', perSec: 5, count: 150 }], time: s(26) },
    { event: 'leak.warning', kind: 'children', slot: 0, pid: 100, growthBytesPerSec: 60000, commands: [{ command: 'sleep 100', count: 6, perMin: 2 }], time: s(170) }]);
  const text = reportLines(doc).join('\n');
  t.regex(text, /FAIL {2}handles leak \+15\/s in slot 0, named at 26 s\n {6}TCPSocketWrap \+10\/s, Timeout \+5\/s/);
  t.regex(text, /FAIL {2}child processes leak \+3\.4 MiB\/min in slot 0, named at 170 s\n {6}commands: sleep 100 ×6 \(\+2\/min\)/);
});

test('a pass, a too-short run and an error each say so in one line', (t) => {
  t.regex(reportLines(docOf([ready(0)])).join('\n'), /^ok {4}no leak named in 240 s of load$/m);
  const short = reportLines(docOf([ready(0)], { endedAt: s(40) })).join('\n');
  t.regex(short, /^ok {4}too short to judge: 40 s of load; .* Run at least 180 s: --duration 180s, or a longer load\.$/m);
  const err = docOf([], { startedAt: null, endedAt: s(1), failure: { what: 'app', reason: 'the app could not start: slot 0 exited with code 1 before it was ready: Error: boom' } });
  t.deepEqual(reportLines(err).slice(1), ['ERROR the app could not start: slot 0 exited with code 1 before it was ready: Error: boom']);
  t.like(err, { result: 'error', exitCode: 2, startedAt: null });
});

test('a holder the retainer analysis words itself is printed as it is', (t) => {
  t.is(describeHolder('cache (Map of 3 entries)'), 'cache (Map of 3 entries)');
  t.is(describeHolder({ text: 'sessions in server.js:4' }), 'sessions in server.js:4');
  t.is(describeHolder({ holder: { name: 'list' } }), 'list');
  t.is(describeHolder({ count: 3, type: 'Session', path: ['store'], holder: { name: 'store', file: 'node_modules/x/i.js', line: 2, package: 'x@1.0.0' } }), 'store (3 Session) declared at node_modules/x/i.js:2 in x@1.0.0');
});

test('XML escaping: markup characters become entities, characters XML cannot hold are dropped', (t) => {
  t.is(xmlEscape('a & b < c > "d" \'e\''), 'a &amp; b &lt; c &gt; &quot;d&quot; &apos;e&apos;');
  t.is(xmlEscape('red \u001b[31mtext\u0000\u0007 \uD800 tab\tnl\n'), 'red [31mtext  tab\tnl\n');
  t.is(xmlEscape('emoji 🚀 ü'), 'emoji 🚀 ü');
});

test('one testcase per leak kind, then memory limits and the app and its load; each the outcome it had', (t) => {
  const fail = testcases(docOf([ready(0), heap(0, 168)]));
  t.deepEqual(fail.map((c) => c.name), ['heap leak', 'external leak', 'handles leak', 'native leak', 'children leak', 'rss leak', 'memory limits', 'app and load']);
  t.like(fail[0], { failure: { type: 'heap', message: 'heap leak +9.3 MiB/min in slot 0, named at 168 s' } });
  t.falsy(fail[1].skipped ?? fail[1].failure, 'external judged and passed at 240 s');
  t.regex(fail[3].skipped.text, /^not judged in 240 s: this kind needs 600 s/);
  const short = testcases(docOf([ready(0)], { endedAt: s(40) }));
  t.true(short.slice(0, 6).every((c) => /^too short to judge/.test(c.skipped?.text)));
  const err = testcases(docOf([], { startedAt: null, endedAt: s(1), failure: { what: 'load', reason: 'the load command exited with code 3' } }));
  t.like(err.at(-1), { error: { type: 'load', message: 'the load command exited with code 3' } });
});

const HOSTILE = 'node -e "process.stdout.write(\'<&>\')" \u001b[1m ]]> --></x>';
const documents = {
  'a leak with a hostile command and site': () => docOf([ready(0), heap(0, 168, { sites: [{ ...site, fn: '<anonymous> & "quoted" ]]>', file: '/app/a&b.js' }] })], { facts: { load: { ...load, command: HOSTILE } } }),
  'a pass': () => docOf([ready(0)]),
  'too short': () => docOf([ready(0)], { endedAt: s(12) }),
  'an app that could not start': () => docOf([], { startedAt: null, endedAt: s(1), failure: { what: 'app', reason: 'the app could not start: Error: <boom> & \u001b[31mred' } }),
  'a memory recycle and a note': () => docOf([ready(0), { event: 'worker.recycle', reason: 'rss', slot: 0, pid: 100, value: 300 * MiB, limit: 256 * MiB, time: s(90) }, { event: 'worker.exit', slot: 0, pid: 101, planned: false, code: 1, time: s(100) }]),
};
for (const [what, make] of Object.entries(documents)) {
  test(`the JUnit report of ${what} is valid under the Jenkins JUnit schema`, async (t) => {
    const xml = junitXml(make(), { hostname: 'ci-runner-1' });
    t.deepEqual(await junitErrors(xml), {}, xml);
    t.regex(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuite name="nodesup check" timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"/);
  });
}

test('the schema check is not vacuous: a testcase without its name is refused', async (t) => {
  const errors = await junitErrors('<testsuite name="x" tests="1"><testcase classname="c"/></testsuite>');
  t.regex(errors['jenkins-junit.xsd']?.join('\n') ?? '', /'name' is required/);
});
