import test from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { parseRollup, parseStatus, parseAnonMappings, readMemory, countFds, startTime } from '../../src/proc/memory.js';
import { descendantsOf } from '../../src/proc/descendants.js';

test('parseRollup reads Rss, Pss and Anonymous in bytes', (t) => {
  const text = '55d0c0000000-7ffd00000000 ---p 00000000 00:00 0   [rollup]\nRss:              45120 kB\nPss:              41000 kB\nPss_Anon:          7000 kB\nAnonymous:         7168 kB\n';
  t.deepEqual(parseRollup(text), { rss: 45120 * 1024, pss: 41000 * 1024, anon: 7168 * 1024 });
  t.is(parseRollup('nonsense'), null);
});

test('parseStatus is the fallback without smaps_rollup', (t) => {
  t.deepEqual(parseStatus('Name:\tnode\nVmRSS:\t  2048 kB\nRssAnon:\t 1024 kB\n'), { rss: 2048 * 1024, pss: null, anon: 1024 * 1024 });
});

test('parseAnonMappings counts anonymous mappings (malloc\'s [heap] included) and 256 KiB V8 pages', (t) => {
  const smaps = [
    '7f0000000000-7f0000040000 rw-p 00000000 00:00 0 ',
    'Rss:                 256 kB',
    '7f0000100000-7f0000140000 rw-p 00000000 00:00 0 ',
    'Rss:                 128 kB',
    '7f0000200000-7f0000300000 rw-p 00000000 00:00 0                          [heap]',
    'Rss:                1024 kB',
    '7f0000400000-7f0000401000 r--p 00000000 08:01 1234                       /usr/bin/node',
    'Rss:                   4 kB',
  ].join('\n');
  t.deepEqual(parseAnonMappings(smaps), { anonymous: 3, v8Pages: 2, anonRss: (256 + 128 + 1024) * 1024 });
});

test('live /proc reads: this process is measured, a gone pid is null (never 0)', (t) => {
  const m = readMemory(process.pid);
  t.true(m.rss > 10 * 1024 * 1024);
  t.true(countFds(process.pid) > 2);
  t.true(startTime(process.pid) > 0);
  t.is(readMemory(2 ** 22 + 7), null);
  t.is(countFds(2 ** 22 + 7), null);
});

test('descendantsOf finds grandchildren without spawning ps', async (t) => {
  const child = spawn('sh', ['-c', 'sleep 30 & echo started; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
  await once(child.stdout, 'data');
  const tree = descendantsOf(process.pid);
  t.true(tree.includes(child.pid));
  t.true(tree.length >= 2, 'the sleep below the shell is found too');
  for (const pid of tree.reverse()) try { process.kill(pid, 'SIGKILL'); } catch {}
});

test('readRss (statm) agrees with smaps_rollup, and is null for a gone pid', async (t) => {
  const { readRss } = await import('../../src/proc/memory.js');
  const cheap = readRss(process.pid);
  const full = readMemory(process.pid).rss;
  t.true(Math.abs(cheap - full) < 4 * 1024 * 1024, `${cheap} vs ${full}`);
  t.is(readRss(2 ** 22 + 7), null);
});

test('readTree: a full read every tenth poll, PSS estimated in between from the last full read', async (t) => {
  const { readTree, isFullRead } = await import('../../src/primary/tick/poller.js');
  const { WorkerRecords } = await import('../../src/primary/lifecycle/worker-records.js');
  const records = new WorkerRecords();
  const h = { pid: process.pid, tree: [], probe: { polls: 0, pssBase: null } };
  const poll = () => { records.notePoll(h); return isFullRead(h.probe); };
  t.true(Array.from({ length: 3 }, poll).every(Boolean), 'every poll is a full read until one succeeds...');
  const full = readTree(records, h, true);
  t.true(full.own.pss > 0, 'the full read measured PSS');
  t.deepEqual(Array.from({ length: 10 }, poll).filter(Boolean).length, 1, '...then one in ten');
  const cheap = readTree(records, h, false);
  t.true(cheap.own.pss > 0 && cheap.own.pss <= cheap.own.rss);
  t.true(Math.abs(cheap.own.pss - full.own.pss) < 8 * 1024 * 1024, 'the estimate is close to the measured PSS');
});

test('buildSample: native is RSS minus the physical heap and external; unknown stays null', async (t) => {
  const { buildSample } = await import('../../src/primary/tick/poller.js');
  const MB = 1024 * 1024;
  const proc = { own: { rss: 200 * MB, pss: 150 * MB, anon: 120 * MB }, children: 1, childrenRss: 30 * MB, childrenPss: 20 * MB, fds: 12 };
  const stats = { heapUsed: 60 * MB, heapTotal: 150 * MB, heapPhysical: 90 * MB, external: 10 * MB };
  const s = buildSample(1, 42, proc, stats);
  t.is(s.native, 100 * MB, 'reserved-but-untouched heap (heapTotal − physical) is not subtracted');
  t.is(s.treeRss, 230 * MB);
  t.is(s.treePss, 170 * MB);
  t.is(buildSample(1, 42, proc, { ...stats, heapPhysical: undefined }).native, 40 * MB, 'heapTotal when the physical size is unknown');
  const noAgent = buildSample(1, 42, proc, null);
  t.is(noAgent.native, null);
  t.is(noAgent.heapUsed, null);
  t.false(noAgent.agent);
});

test('readTree with the agent\'s reply: its RSS and fds stand in for /proc; the children are walked only when it lists some', async (t) => {
  const { readTree } = await import('../../src/primary/tick/poller.js');
  const child = spawn('sleep', ['30']);
  t.teardown(() => child.kill());
  await once(child, 'spawn');
  const h = { pid: process.pid, tree: [] };
  const agent = { rss: 123 * 4096, fds: 7 };
  const trusted = readTree(null, h, false, { ...agent, childPids: [] });
  t.is(trusted.own.rss, 123 * 4096, 'RSS from the reply, no statm read');
  t.is(trusted.fds, 7, 'fds from the reply');
  t.is(trusted.children, 0, 'no children listed, none walked');
  const listed = readTree(null, h, false, { ...agent, childPids: [child.pid] });
  t.true(listed.children >= 1 && listed.childrenRss > 0, 'a listed child is walked and measured');
  const noReply = readTree(null, h, false, null);
  t.true(noReply.own.rss > 10 * 1024 * 1024, 'no reply: RSS from /proc');
  t.true(Number.isInteger(noReply.fds) && noReply.fds > 7, `no reply: fds from /proc (${noReply.fds})`);
  t.true(noReply.children >= 1, 'no reply: the children are walked');
  t.true(readTree(null, h, true, { ...agent, childPids: [] }).children >= 1, 'a full read walks them unless the reply listed every thread\'s');
});

test('readTree on a full read with the agent\'s own smaps_rollup: its RSS/PSS/anon stand in for /proc, and every thread\'s children listed', async (t) => {
  const { readTree } = await import('../../src/primary/tick/poller.js');
  const child = spawn('sleep', ['30']);
  t.teardown(() => child.kill());
  await once(child, 'spawn');
  const h = { pid: process.pid, tree: [] };
  const memory = { rss: 300 * 4096, pss: 200 * 4096, anon: 100 * 4096 };
  const none = readTree(null, h, true, { rss: 1, fds: 7, memory, childPids: [], allThreads: true });
  t.deepEqual(none.own, memory, 'own memory from the reply, not from /proc (this process is far bigger)');
  t.is(none.children, 0, 'every thread listed no child: none walked');
  const some = readTree(null, h, true, { rss: 1, fds: 7, memory, childPids: [child.pid], allThreads: true });
  t.true(some.children >= 1 && some.childrenPss > 0, 'a listed child is walked and measured in full');
  const silent = readTree(null, h, true, { rss: 1, fds: 7, memory: null, childPids: [], allThreads: true });
  t.true(silent.own.rss > 10 * 1024 * 1024 && silent.own.pss > 0, 'no memory in the reply: smaps_rollup read here');
});
