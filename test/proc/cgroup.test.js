import test from 'ava';
import { fileURLToPath } from 'node:url';
import { readCgroup, readCgroupMemoryCurrent } from '../../src/proc/cgroup.js';

const fixture = (name) => fileURLToPath(new URL(`../fixtures/cgroup/${name}`, import.meta.url));
const MiB = 1024 ** 2;

const nothing = { version: null, memoryLimit: null, memoryCurrent: null, cpuQuota: null, oomGroup: null };
const table = [
  ['v2', { version: 2, memoryLimit: 512 * MiB, memoryCurrent: 100 * MiB, cpuQuota: 2, oomGroup: false }],
  // Kubernetes ≥ 1.28 on cgroup v2: the container's cgroup has memory.oom.group 1.
  ['v2-oom-group', { version: 2, memoryLimit: 512 * MiB, memoryCurrent: 100 * MiB, cpuQuota: 2, oomGroup: true }],
  // No memory.oom.group file: unknown, not "off".
  ['v2-unlimited', { version: 2, memoryLimit: null, memoryCurrent: 50 * MiB, cpuQuota: null, oomGroup: null }],
  // v1 has no group kill: unknown.
  ['v1', { version: 1, memoryLimit: 1024 * MiB, memoryCurrent: 256 * MiB, cpuQuota: 1.5, oomGroup: null }],
  // v1 writes "no limit" as 9223372036854771712 and "no quota" as -1.
  ['v1-unlimited', { version: 1, memoryLimit: null, memoryCurrent: 12570624, cpuQuota: null, oomGroup: null }],
  ['none', nothing],
  ['does-not-exist', nothing],
  // A file where a directory should be must not throw either.
  ['v2/memory.max', nothing],
];

for (const [name, want] of table) {
  test(`readCgroup: ${name}`, (t) => {
    t.deepEqual(readCgroup(fixture(name)), want);
  });
  test(`readCgroupMemoryCurrent: ${name}`, (t) => {
    t.is(readCgroupMemoryCurrent(fixture(name)), want.memoryCurrent);
  });
}

test('NODESUP_CGROUP_ROOT is the default root', (t) => {
  const before = process.env.NODESUP_CGROUP_ROOT;
  process.env.NODESUP_CGROUP_ROOT = fixture('v1');
  try {
    t.is(readCgroup().memoryLimit, 1024 * MiB);
    t.is(readCgroupMemoryCurrent(), 256 * MiB);
  } finally {
    if (before === undefined) delete process.env.NODESUP_CGROUP_ROOT;
    else process.env.NODESUP_CGROUP_ROOT = before;
  }
});

test('the real /sys/fs/cgroup reads without throwing, unknown as null', (t) => {
  const c = readCgroup('/sys/fs/cgroup');
  t.true([1, 2, null].includes(c.version));
  for (const k of ['memoryLimit', 'memoryCurrent', 'cpuQuota']) t.true(c[k] === null || (typeof c[k] === 'number' && c[k] > 0), k);
  t.true([true, false, null].includes(c.oomGroup), 'oomGroup');
});

test('readOomKills: the oom_kill counter of v2 memory.events and v1 memory.oom_control; null when absent', async (t) => {
  const { readOomKills } = await import('../../src/proc/cgroup.js');
  t.is(readOomKills(fixture('v2')), 2);
  t.is(readOomKills(fixture('v1')), 5);
  t.is(readOomKills(fixture('v2-unlimited')), null, 'no memory.events: unknown, not 0');
  t.is(readOomKills(fixture('none')), null);
});
