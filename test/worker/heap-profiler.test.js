// The agent's heap profiler, in-process as the agent runs it: sites of what is retained, its memory
// given back when stopped, and a plain reason when it cannot run (a debugger holds the inspector).
import test from 'ava';
import inspector from 'node:inspector';
import v8 from 'node:v8';
import vm from 'node:vm';
import { heapProfiler } from '../../src/worker/heap-profiler.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const kept = [];
function keepSome(n) {
  for (let i = 0; i < n; i++) kept.push({ i, payload: new Array(120).fill(i + 0.5) });
}

test.serial('two samples apart: the function that retains is among the sites, with its file', async (t) => {
  const p = heapProfiler();
  t.teardown(() => p.stop());
  const before = await p.sample();
  t.truthy(before, String(p.reason));
  keepSome(20_000); // ~20 MiB retained
  gc();
  const after = await p.sample();
  const mine = after.sites.find((s) => s.fn === 'keepSome');
  t.truthy(mine, JSON.stringify(after.sites.slice(0, 3)));
  t.true(mine.file.endsWith('test/worker/heap-profiler.test.js'));
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
