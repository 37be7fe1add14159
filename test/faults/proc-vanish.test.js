// /proc entries that vanish mid-read: a worker that exited (and was reaped, or is a zombie not yet
// reaped) between the listing and the read. No throw, and what could not be read is null, never 0.
import test from 'ava';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readTree, buildSample, pollOnce } from '../../src/primary/tick/poller.js';
import { WorkerRecords } from '../../src/primary/lifecycle/worker-records.js';
import { readMemory, countFds, startTime } from '../../src/proc/memory.js';
import { childrenOf, descendantsOf } from '../../src/proc/descendants.js';
import { within } from './_helpers.js';

// A pid that existed a moment ago and has been reaped since.
async function exitedPid() {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid;
}

// A zombie: `sh` forks `true`, then execs into `sleep`, which never waits for it.
async function zombie(t) {
  const parent = spawn('sh', ['-c', '/bin/true & exec sleep 60'], { stdio: 'ignore' });
  t.teardown(() => parent.kill('SIGKILL'));
  await within((async () => {
    for (;;) {
      const [pid] = childrenOf(parent.pid);
      if (pid && /^\d+ \(.*\) Z /.test(readStat(pid))) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  })(), 10_000, 'the zombie');
  return { parent: parent.pid, pid: childrenOf(parent.pid)[0] };
}

function readStat(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return '';
  }
}

const handleOf = (pid) => ({ pid, tree: [] });
const ALWAYS_THERE = new Set(['t', 'pid', 'agent']);

function assertAllNull(t, sample) {
  for (const [key, value] of Object.entries(sample)) {
    if (!ALWAYS_THERE.has(key)) t.is(value, null, `${key} is null, not ${JSON.stringify(value)}`);
  }
  t.false(sample.agent, 'agent: false when the agent did not answer');
}

test('the /proc readers on a pid that just exited: null, never a throw or a 0', async (t) => {
  const pid = await exitedPid();
  t.is(readMemory(pid), null);
  t.is(countFds(pid), null);
  t.is(startTime(pid), null);
  t.deepEqual(descendantsOf(pid), []);
});

test('readTree + buildSample of a pid that just exited: every measured field null, agent false', async (t) => {
  const pid = await exitedPid();
  const h = handleOf(pid);
  let proc;
  t.notThrows(() => { proc = readTree(null, h); });
  t.is(proc.own, null);
  t.is(proc.fds, null);
  assertAllNull(t, buildSample(1000, pid, proc, null));
  t.deepEqual(h.tree, [], 'no tree remembered for a process that is gone');
});

test('pollOnce with a worker that exited during the tick: no throw, a null sample in its window', async (t) => {
  const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  t.teardown(() => live.kill('SIGKILL'));
  const gone = await exitedPid();
  const handles = [live.pid, gone].map((pid) => ({ pid, tree: [], probe: { polls: 0, pssBase: null }, window: { samples: [], push(s) { this.samples.push(s); } } }));
  // The agent never answers: one handle because it is gone, the other because it has no agent.
  class SilentPool extends WorkerRecords {
    async requestEach(hs) { return hs.map(() => null); }
  }
  const pool = new SilentPool();
  const samples = await pollOnce(pool, handles, { timeoutMs: 200, now: () => 42 });
  t.is(samples.length, 2);
  t.true(samples[0].rss > 0, 'the live process is still measured');
  assertAllNull(t, samples[1]);
  t.is(handles[1].window.samples[0], samples[1]);
});

test('a zombie child of a live worker (exited, not reaped) is skipped, not counted as 0 bytes', async (t) => {
  const z = await zombie(t);
  t.is(readMemory(z.pid), null, 'a zombie has no memory to read');
  const proc = readTree(null, handleOf(z.parent));
  t.true(proc.own.rss > 0);
  t.is(proc.childrenRss, 0, 'the zombie adds nothing');
});

// A zombie worker (exited, not yet reaped: the window in which a tick races an exit) still has
// /proc/<pid>/fd, empty: its fd count must be null like every other field, not 0.
test('readTree + buildSample of a zombie worker: every measured field null, fds too', async (t) => {
  const z = await zombie(t);
  const proc = readTree(null, handleOf(z.pid));
  t.is(proc.own, null);
  assertAllNull(t, buildSample(1000, z.pid, proc, null));
});
