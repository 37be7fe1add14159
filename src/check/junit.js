// The check's document as a JUnit XML report, for the CI systems that show test results (GitLab,
// Jenkins, GitHub through a reporter action). One testsuite, "nodesup check"; one testcase per
// leak kind, one for memory limits and one for the app and its load, so a CI's test view says
// which kind failed and which the run was too short to judge. Valid under Jenkins' JUnit schema
// (test/fixtures/junit/), with the suite attributes the Ant schema requires besides.
import path from 'node:path';
import { CHECKED_KINDS } from './judging-time.js';
import { reportLines } from './report-text.js';

const SUITE = 'nodesup check';

// XML 1.0 has no escape for most control characters (an app's coloured stderr carries ESC): they
// are dropped. Lone surrogates are not characters either.
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text or an attribute value, safe in XML. */
export function xmlEscape(s) {
  return String(s).replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

const attrs = (o) => Object.entries(o).map(([k, v]) => ` ${k}="${xmlEscape(v)}"`).join('');

/** The outcome of each testcase: {name, failure?|error?|skipped?: {message?, type?, text}}. */
export function testcases(doc) {
  const cases = [];
  const notRun = doc.failure ? `not judged: ${doc.failure.reason}` : null;
  const shortNote = doc.notes.find((n) => n.code === 'too-short' || n.code === 'rising');
  for (const kind of CHECKED_KINDS) {
    const name = `${kind} leak`;
    const leak = doc.leaks.find((L) => L.kind === kind);
    if (leak) cases.push({ name, failure: { type: kind, message: leak.text, text: [leak.text, ...leak.details].join('\n') } });
    else if (notRun) cases.push({ name, skipped: { text: notRun } });
    else if (shortNote) cases.push({ name, skipped: { text: shortNote.text } });
    else if (doc.judged?.[kind] === false) cases.push({ name, skipped: { text: `not judged in ${doc.ranS} s: this kind needs ${doc.judgeAfterS[kind]} s at these settings` } });
    else if (!doc.judgeAfterS) cases.push({ name, skipped: { text: 'leak detection is off' } });
    else cases.push({ name });
  }
  const memory = doc.memory.map((m) => m.text);
  if (memory.length) cases.push({ name: 'memory limits', failure: { type: 'memory-limit', message: memory[0], text: memory.join('\n') } });
  else cases.push(notRun ? { name: 'memory limits', skipped: { text: notRun } } : { name: 'memory limits' });
  if (doc.failure) cases.push({ name: 'app and load', error: { type: doc.failure.what, message: doc.failure.reason, text: doc.failure.reason } });
  else cases.push({ name: 'app and load' });
  return cases;
}

function testcaseXml(c, classname, time) {
  const open = `  <testcase${attrs({ name: c.name, classname, time })}`;
  const outcome = c.failure ? ['failure', c.failure] : c.error ? ['error', c.error] : c.skipped ? ['skipped', c.skipped] : null;
  if (!outcome) return `${open}/>`;
  const [tag, o] = outcome;
  // `skipped` is text alone in the Jenkins schema: no attributes.
  const a = tag === 'skipped' ? '' : attrs({ ...(o.message ? { message: o.message } : {}), type: o.type });
  return `${open}>\n    <${tag}${a}>${xmlEscape(o.text)}</${tag}>\n  </testcase>`;
}

/**
 * The JUnit XML document for a check.
 * @param {ReturnType<import('./document.js').checkDocument>} doc
 * @param {{hostname?: string}} [o]
 */
export function junitXml(doc, { hostname = 'localhost' } = {}) {
  const cases = testcases(doc);
  const time = String(doc.ranS);
  const classname = `nodesup check.${path.basename(doc.script)}`;
  const count = (k) => cases.filter((c) => c[k]).length;
  // The Ant schema's timestamp: ISO 8601 to the second, no zone (UTC here). It has no `skipped`
  // count on the suite: the skipped cases say it.
  const timestamp = (doc.startedAt ?? doc.endedAt).slice(0, 19);
  const properties = {
    script: doc.script, workers: doc.workers, result: doc.result, exitCode: doc.exitCode,
    load: doc.load?.command ?? '', durationS: doc.durationS ?? '', requests: doc.requests ?? '',
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite${attrs({ name: SUITE, timestamp, hostname: hostname || 'localhost', tests: cases.length, failures: count('failure'), errors: count('error'), time })}>`,
    '  <properties>',
    ...Object.entries(properties).map(([name, value]) => `    <property${attrs({ name, value })}/>`),
    '  </properties>',
    ...cases.map((c) => testcaseXml(c, classname, time)),
    `  <system-out>${xmlEscape(reportLines(doc).join('\n'))}</system-out>`,
    `  <system-err>${xmlEscape(doc.failure?.reason ?? '')}</system-err>`,
    '</testsuite>',
    '',
  ].join('\n');
}
