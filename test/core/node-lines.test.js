// The differences between Node lines that nodesup depends on, pinned on the line under test: CI
// runs this file on the machine's Node and on 22 and 24, so a new line that changes one fails here.
import test from 'ava';
import v8 from 'node:v8';
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { abortingFlag } from '../../src/core/node-lines.js';
import { resolveConfig } from '../../src/config/load.js';

const [major, minor] = process.versions.node.split('.').map(Number);
const GC_HEAVY = 'let a = []; for (let i = 0; i < 3e6; i++) { a.push({ i }); if (a.length > 5e5) a = []; }';

test(`--no-parallel-marking alone: aborts Node ${process.versions.node} exactly when abortingFlag says so`, (t) => {
  const predicted = abortingFlag(['--no-parallel-marking'], process.versions.node) !== null;
  const run = spawnSync(process.execPath, ['--no-parallel-marking', '-e', GC_HEAVY], { encoding: 'utf8', timeout: 60_000 });
  t.is(run.status !== 0, predicted, `exit ${run.status} ${run.signal}: ${run.stderr.split('\n').find((l) => l.includes('Check failed')) ?? ''}`);
  t.is(predicted, major < 24);
});

test('--no-concurrent-marking alone (seed 002) runs on every line', (t) => {
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
  t.is(typeof w.getHeapStatistics === 'function', major > 22 || (major === 22 && minor >= 16));
});
