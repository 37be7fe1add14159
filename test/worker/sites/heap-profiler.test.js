// The agent's heap profiler, in-process as the agent runs it: sites of what is retained, its memory
// given back when stopped, and a plain reason when it cannot run (a debugger holds the inspector).
// Two ways in: an inspector session on every line, Node 26's v8.startHeapProfile where the
// inspector is denied (Node's permission model). Each test asserts what the line under test does.
import test from 'ava';
import inspector from 'node:inspector';
import v8 from 'node:v8';
import vm from 'node:vm';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { heapProfiler, SAMPLING_INTERVAL } from '../../../src/worker/sites/heap-profiler.js';
import { inProcessProfiler } from '../../../src/worker/sites/in-process-profiler.js';
import { flattenProfile } from '../../../src/core/sites/heap-sites.js';
import { has } from '../../../src/core/node-lines.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
const inProcess = has('v8.startHeapProfile', process.versions.node);

const kept = [];
function keepSome(n) {
  for (let i = 0; i < n; i++) kept.push({ i, payload: new Array(120).fill(i + 0.5) });
}

test.serial('two samples apart: the function that retains is among the sites, with its file', async (t) => {
  const p = heapProfiler();
  t.teardown(() => p.stop());
  const before = await p.sample();
  t.truthy(before, String(p.reason));
  t.is(p.via, 'inspector', 'the inspector session first, on every line');
  keepSome(20_000); // ~20 MiB retained
  gc();
  const after = await p.sample();
  const mine = after.sites.find((s) => s.fn === 'keepSome');
  t.truthy(mine, JSON.stringify(after.sites.slice(0, 3)));
  t.true(mine.file.endsWith('test/worker/sites/heap-profiler.test.js'));
  t.true(mine.bytes > 5 * 1024 * 1024, `${mine.bytes} bytes sampled`);
  t.is(p.reason, null);
});

test.serial('under --inspect (a debugger may hold the profiler): no sites, and the reason says so', async (t) => {
  inspector.open(0, '127.0.0.1', false);
  t.teardown(() => inspector.close());
  const p = heapProfiler();
  t.is(await p.sample(), null);
  t.regex(p.reason, /--inspect/);
});

const flatten = (head) => flattenProfile(head, { cwd: process.cwd() });

test.serial(`v8.startHeapProfile, segment by segment (Node ${process.versions.node}): the retaining site, or why not`, (t) => {
  const p = inProcessProfiler({ interval: SAMPLING_INTERVAL, flatten });
  t.teardown(() => p.stop());
  const first = p.sample();
  if (!inProcess) {
    t.is(first, null);
    t.regex(p.reason, /has no v8\.startHeapProfile/);
    return;
  }
  t.deepEqual(first, { total: 0, sites: [] }, 'nothing sampled before the first read');
  keepSome(10_000);
  gc();
  const second = p.sample();
  keepSome(10_000);
  gc();
  const third = p.sample();
  const at = (prof) => prof.sites.find((s) => s.fn === 'keepSome')?.bytes ?? 0;
  t.true(at(second) > 2 * 1024 * 1024, `${at(second)} bytes after one segment`);
  t.true(at(third) > at(second) + 2 * 1024 * 1024, `the segments add up: ${at(second)} then ${at(third)}`);
  t.is(p.reason, null);
});

test.serial('while the app runs its own v8.startHeapProfile, nodesup leaves it alone and says why (Node 26)', async (t) => {
  if (!inProcess) return t.is(typeof v8.startHeapProfile, 'undefined');
  const theirs = v8.startHeapProfile();
  const p = heapProfiler();
  t.teardown(() => p.stop());
  t.is(await p.sample(), null);
  t.regex(p.reason, /in use elsewhere/);
  t.is(typeof theirs.stop(), 'string', "the app's profile is still its own to stop");
});

test('where the inspector is denied (--permission): Node 26 samples in-process; before, the reason names both', async (t) => {
  const script = new URL('../../fixtures/agent/profile-without-inspector.js', import.meta.url).pathname;
  const permission = has('--permission', process.versions.node) ? '--permission' : '--experimental-permission';
  const { stdout } = await promisify(execFile)(process.execPath, [permission, '--allow-fs-read=*', script], { timeout: 60_000 });
  const r = JSON.parse(stdout);
  if (!inProcess) {
    t.like(r, { site: null, via: null });
    t.regex(r.reason, /cannot open an inspector session: Access to this API has been restricted.*; Node \S+ has no v8\.startHeapProfile/);
    return;
  }
  t.like(r, { via: 'in-process', reason: null, site: { fn: 'keepSome', file: 'test/fixtures/agent/profile-without-inspector.js' } });
  t.true(r.site.bytes > 5 * 1024 * 1024, `${r.site.bytes} bytes sampled`);
});
