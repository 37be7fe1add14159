// The differences between Node lines that nodesup depends on, pinned on the line under test: CI
// runs this file on the machine's Node and on 22, 24 and 26, so a new line that changes one fails here.
import test from 'ava';
import v8 from 'node:v8';
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { abortingFlag, has } from '../../src/core/node-lines.js';
import { resolveConfig } from '../../src/config/load.js';

const [major, minor] = process.versions.node.split('.').map(Number);
const GC_HEAVY = 'let a = []; for (let i = 0; i < 3e6; i++) { a.push({ i }); if (a.length > 5e5) a = []; }';

test(`--no-parallel-marking alone: aborts Node ${process.versions.node} exactly when abortingFlag says so`, (t) => {
  const predicted = abortingFlag(['--no-parallel-marking'], process.versions.node) !== null;
  const run = spawnSync(process.execPath, ['--no-parallel-marking', '-e', GC_HEAVY], { encoding: 'utf8', timeout: 60_000 });
  t.is(run.status !== 0, predicted, `exit ${run.status} ${run.signal}: ${run.stderr.split('\n').find((l) => l.includes('Check failed')) ?? ''}`);
  t.is(predicted, major < 24);
});

test(`--experimental-transform-types: refused by Node ${process.versions.node} exactly when abortingFlag says so`, (t) => {
  const predicted = abortingFlag(['--experimental-transform-types'], process.versions.node) !== null;
  const run = spawnSync(process.execPath, ['--experimental-transform-types', '-e', '0'], { encoding: 'utf8', timeout: 60_000 });
  t.is(run.status !== 0, predicted, `exit ${run.status}: ${run.stderr.trim()}`);
});

test('--no-concurrent-marking alone (incident 3) runs on every line', (t) => {
  t.is(abortingFlag(['--no-concurrent-marking'], process.versions.node), null);
  const run = spawnSync(process.execPath, ['--no-concurrent-marking', '-e', GC_HEAVY], { timeout: 60_000 });
  t.is(run.status, 0);
});

const CASES = [
  [['--no-parallel-marking'], '20.20.2', '--no-parallel-marking'],
  [['--no_parallel_marking'], '22.23.3', '--no-parallel-marking'],
  [['--no-parallel-marking'], '24.21.0', null],
  [['--no-parallel-marking', '--no-concurrent-marking'], '20.20.2', '--no-parallel-marking'],
  [['--no-concurrent-marking'], '22.23.3', null],
  [['--max-semi-space-size=16'], '20.20.2', null],
];
for (const [args, version, want] of CASES) {
  test(`abortingFlag(${args.join(' ')}) on ${version} → ${want}`, (t) => {
    t.is(abortingFlag(args, version)?.flag ?? null, want);
  });
}

test('a config whose nodeArgs abort this line is refused in one line, naming the flag and the fix', async (t) => {
  const raw = { script: new URL('../fixtures/apps/http.js', import.meta.url).pathname, nodeArgs: ['--no-parallel-marking'] };
  if (major >= 24) return t.truthy(await resolveConfig(raw));
  const err = await t.throwsAsync(resolveConfig(raw), { code: 'NODESUP_ERR_CONFIG' });
  t.regex(err.message, /--no-parallel-marking makes Node \S+ abort .*drop it/);
  t.false(err.message.includes('\n'));
});

test('heap spaces: new_space on every line (the agent reads it); trusted_space from Node 22', (t) => {
  const names = v8.getHeapSpaceStatistics().map((s) => s.space_name);
  t.true(names.includes('new_space'));
  t.is(names.includes('trusted_space'), major >= 22);
});

test('Worker#getHeapStatistics exists from Node 22.16 (thread heaps), not before', (t) => {
  const w = new Worker('0', { eval: true });
  t.teardown(() => w.terminate());
  t.is(typeof w.getHeapStatistics === 'function', has('Worker#getHeapStatistics', process.versions.node));
  t.is(has('Worker#getHeapStatistics', process.versions.node), major > 22 || (major === 22 && minor >= 16));
});

const HAS = [
  ['Worker#getHeapStatistics', '22.15.1', false], ['Worker#getHeapStatistics', '22.16.0', true], ['Worker#getHeapStatistics', '20.20.2', false],
  ['v8.startHeapProfile', '24.21.0', false], ['v8.startHeapProfile', '26.0.0', true], ['v8.startHeapProfile', '26.10.0', true],
  ['--permission', '20.20.2', false], ['--permission', '22.23.3', true],
];
for (const [api, version, want] of HAS) {
  test(`has(${api}, ${version}) → ${want}`, (t) => t.is(has(api, version), want));
}

test('v8.startHeapProfile (in-process heap sampling, no inspector) exists from Node 26, not before', (t) => {
  t.is(typeof v8.startHeapProfile === 'function', has('v8.startHeapProfile', process.versions.node));
  t.is(has('v8.startHeapProfile', process.versions.node), major >= 26);
});

const node = (args, code) => spawnSync(process.execPath, [...args, '-e', code], { encoding: 'utf8', timeout: 60_000 });
const PERMISSION = has('--permission', process.versions.node) ? '--permission' : '--experimental-permission';

test('the permission model is --permission from Node 22, --experimental-permission until 22 (gone from 24)', (t) => {
  t.is(node(['--permission'], '0').status === 0, has('--permission', process.versions.node));
  t.is(node(['--experimental-permission'], '0').status === 0, major < 24);
});

test('under the permission model an inspector session is denied on every line; v8.startHeapProfile runs where the line has it', (t) => {
  const run = node([PERMISSION], `
    const out = {};
    try { new (require('node:inspector').Session)().connect(); out.inspector = 'ok'; } catch (e) { out.inspector = e.code; }
    const v8 = require('node:v8');
    try { out.v8 = typeof v8.startHeapProfile === 'function' ? typeof v8.startHeapProfile().stop() : 'absent'; } catch (e) { out.v8 = e.code; }
    console.log(JSON.stringify(out));`);
  t.is(run.status, 0, run.stderr);
  t.deepEqual(JSON.parse(run.stdout), { inspector: 'ERR_ACCESS_DENIED', v8: has('v8.startHeapProfile', process.versions.node) ? 'string' : 'absent' });
});

test("Node 26: beside the app's v8.startHeapProfile an inspector session samples without a word, and its stop ends the app's profile", (t) => {
  if (!has('v8.startHeapProfile', process.versions.node)) return t.is(v8.startHeapProfile, undefined);
  const run = node([], `
    const v8 = require('node:v8');
    const theirs = v8.startHeapProfile();
    const s = new (require('node:inspector').Session)(); s.connect();
    const out = {};
    s.post('HeapProfiler.startSampling', {}, (e) => { out.start = e ? 'error' : 'ok';
      s.post('HeapProfiler.stopSampling', () => {
        try { theirs.stop(); out.theirs = 'stopped'; } catch (e) { out.theirs = e.code; }
        try { v8.startHeapProfile().stop(); out.again = 'ok'; } catch (e) { out.again = e.code; }
        console.log(JSON.stringify(out));
      });
    });`);
  t.is(run.status, 0, run.stderr);
  // Why the agent asks v8.startHeapProfile first: it throws while any sampling profiler runs.
  t.deepEqual(JSON.parse(run.stdout), { start: 'ok', theirs: 'ERR_HEAP_PROFILE_NOT_STARTED', again: 'ok' });
});

test('every flag that aborts a line has its words for the config error', async (t) => {
  const { ABORTING_FLAGS } = await import('../../src/core/node-lines.js');
  const { ABORTING_WORDS } = await import('../../src/config/load.js');
  t.deepEqual(ABORTING_FLAGS.map((a) => a.flag).filter((f) => !ABORTING_WORDS[f]?.why || !ABORTING_WORDS[f]?.fix), []);
});
