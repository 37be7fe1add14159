// The Sample is written down once (src/sample/fields.js): its typedef, the agent's real reply and
// hello, the poller's assembly, and the history's and the metrics' lists are all held to the table.
import test from 'ava';
import fs from 'node:fs';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FIELDS, FIELD, SOURCE, CADENCE, AGENT_POLLED, AGENT_CONSTANTS, READINGS, DETAIL } from '../../src/sample/fields.js';
import { KIND, message, isOurs } from '../../src/protocol.js';
import { buildSample } from '../../src/primary/tick/poller.js';
import { SERIES_OF } from '../../src/report/history/slot-history.js';
import { SLOT_GAUGES, SLOT_COUNTERS } from '../../src/report/metrics/metrics.js';

const FIELDS_FILE = fileURLToPath(new URL('../../src/sample/fields.js', import.meta.url));
const agent = pathToFileURL(fileURLToPath(new URL('../../src/worker/agent.js', import.meta.url))).href;
const app = fileURLToPath(new URL('../fixtures/agent/thread-child.js', import.meta.url));
const names = (list) => list.map((f) => f.name).sort();

/** The @property names of the Sample typedef in fields.js's comment. */
function typedefNames() {
  const text = fs.readFileSync(FIELDS_FILE, 'utf8');
  const block = /@typedef \{object\} Sample\b([\s\S]*?)\*\//.exec(text);
  if (!block) return [];
  return [...block[1].matchAll(/@property \{[^}]*\} \[?(\w+)/g)].map((m) => m[1]).sort();
}

test('the table: one entry a field, each with a known source and cadence, a unit and a one-line meaning', (t) => {
  t.is(new Set(FIELDS.map((f) => f.name)).size, FIELDS.length, 'no field twice');
  for (const f of [...FIELDS, ...READINGS, ...DETAIL]) {
    t.true(Object.values(SOURCE).includes(f.source), `${f.name}: source ${f.source}`);
    t.true(Object.values(CADENCE).includes(f.cadence), `${f.name}: cadence ${f.cadence}`);
    t.true(typeof f.unit === 'string' && f.unit.length > 0, `${f.name}: a unit`);
    t.true(typeof f.meaning === 'string' && f.meaning.length > 0 && !f.meaning.includes('\n'), `${f.name}: one line of meaning`);
  }
  t.true(AGENT_CONSTANTS.every((f) => f.source === SOURCE.AGENT), 'only the agent sends constants');
  t.deepEqual(names(AGENT_CONSTANTS), ['gcFlags', 'heapLimit']);
});

test('the Sample typedef lists every field of the table, and nothing else', (t) => {
  const documented = typedefNames();
  t.true(documented.length > 0, 'the typedef was found');
  t.deepEqual(documented, names(FIELDS));
});

test('buildSample fills exactly the table\'s fields, with or without a reply; unknown is null', (t) => {
  const proc = { own: { rss: 100, pss: 80, anon: 60 }, children: 0, childrenRss: 0, childrenPss: 0, fds: 9 };
  const reply = Object.fromEntries(AGENT_POLLED.map((f) => [f.name, 1]));
  const answered = buildSample(1, 2, proc, reply, { heapLimit: 4096, gcFlags: [] });
  t.deepEqual(Object.keys(answered).sort(), names(FIELDS));
  t.true(Object.values(answered).every((v) => v !== undefined));
  t.is(answered.heapLimit, 4096, 'a constant from the hello');
  t.deepEqual(answered.gcFlags, []);
  const silent = buildSample(1, 2, proc, null, { heapLimit: 4096, gcFlags: [] });
  t.deepEqual(Object.keys(silent).sort(), names(FIELDS));
  for (const f of AGENT_FIELDS_OF(silent)) t.is(silent[f], null, `${f}: null when the agent did not answer`);
});

const AGENT_FIELDS_OF = (sample) => Object.keys(sample).filter((k) => FIELD[k].source === SOURCE.AGENT);

test('constants: from the hello, or from each reply as an older agent sent them; the reply\'s own wins', (t) => {
  const proc = { own: null, children: 0, childrenRss: 0, childrenPss: 0, fds: null };
  const old = buildSample(1, 2, proc, { heapUsed: 5, heapLimit: 2048, gcFlags: ['--no-concurrent-marking'] }, { pid: 2, node: 'v20' });
  t.is(old.heapLimit, 2048);
  t.deepEqual(old.gcFlags, ['--no-concurrent-marking']);
  t.is(buildSample(1, 2, proc, { heapUsed: 5 }, null).heapLimit, null, 'no hello, no constant');
  t.is(buildSample(1, 2, proc, { heapUsed: 5 }, { heapLimit: 1024 }).heapLimit, 1024);
});

test('the history\'s series and the metrics\' gauges name fields of the table', (t) => {
  const named = [...SERIES_OF.flatMap((s) => s.fields), ...[...SLOT_GAUGES, ...SLOT_COUNTERS].flatMap((g) => (g.field ? [g.field] : []))];
  t.true(named.length >= 15, `${named.length} fields named`);
  t.deepEqual(named.filter((n) => !FIELD[n]), [], 'every named field is in the table');
});

// A worker running the real agent, asked over its real IPC channel.
async function startWorker(t) {
  // NODE_UNIQUE_ID makes the child a cluster worker, which is what the agent answers as.
  const child = fork(app, [], { execArgv: ['--import', agent, '--max-old-space-size=300'], env: { ...process.env, NODE_OPTIONS: '', NODE_UNIQUE_ID: '1' }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let grandchild = null;
  t.teardown(() => {
    child.kill('SIGKILL');
    if (grandchild) try { process.kill(grandchild, 'SIGKILL'); } catch {}
  });
  const hello = new Promise((resolve) => {
    const on = (msg) => { if (isOurs(msg) && msg.kind === KIND.HELLO) { child.off('internalMessage', on); resolve(msg); } };
    child.on('internalMessage', on);
  });
  const [line] = await once(child.stdout, 'data');
  grandchild = Number(String(line).trim());
  let seq = 0;
  const ask = (fields) => {
    const id = ++seq;
    const reply = new Promise((resolve) => {
      const on = (msg) => {
        if (isOurs(msg) && msg.kind === KIND.REPLY && msg.id === id) { child.off('internalMessage', on); resolve(msg); }
      };
      child.on('internalMessage', on);
    });
    child.send(message(KIND.STATS, { id, ...fields }));
    return reply;
  };
  return { hello: await hello, ask };
}

test('a real agent: its hello carries the constants, its replies exactly the table\'s polled agent fields and readings', async (t) => {
  const { hello, ask } = await startWorker(t);
  const { cmd, v, kind, pid, node, ...constants } = hello;
  t.deepEqual(Object.keys(constants).sort(), names(AGENT_CONSTANTS));
  // The old space's 300 MiB plus the young generation, which Node 24 sizes larger: far under the default of several GiB.
  t.is(constants.heapLimit > 250 * 2 ** 20 && constants.heapLimit < 2 ** 30, true, `heapLimit ${constants.heapLimit} follows --max-old-space-size=300`);
  t.deepEqual(constants.gcFlags, ['--max-old-space-size=300']);

  const every = (list) => list.filter((f) => !f.only);
  const plain = await ask({});
  t.true(plain.ok, plain.error);
  t.deepEqual(Object.keys(plain.result).sort(), names([...every(AGENT_POLLED), ...every(READINGS)]), 'a plain poll');

  // A full read lists every thread's children: the fixture's thread has one, so its command comes too.
  const full = await ask({ full: true });
  t.true(full.ok, full.error);
  t.deepEqual(Object.keys(full.result).sort(), names([...AGENT_POLLED, ...READINGS].filter((f) => f.only !== 'new')), 'a full read');

  const detail = await ask({ detail: true });
  t.true(detail.ok, detail.error);
  t.deepEqual(Object.keys(detail.result).sort(), names([...every(AGENT_POLLED), ...every(READINGS), ...DETAIL]), 'inspect\'s detailed read');
});
