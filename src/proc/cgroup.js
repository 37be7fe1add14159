// The container's memory and CPU budget, from cgroup files. A pod's limit is what the OOM killer
// enforces, not the host's RAM, so `limits.totalRss: '90%'` and `workers: 'max'` are read against it.
// Reads are synchronous and tiny (sysfs files, no process spawned) and never throw: unknown is null.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, isAbsolute } from 'node:path';

export const DEFAULT_CGROUP_ROOT = '/sys/fs/cgroup';

// cgroup v1 writes "no limit" as the largest page-aligned int64 (9223372036854771712), not 'max'.
const V1_UNLIMITED = 2 ** 60;

/**
 * @typedef {{version: 2|1|null, memoryLimit: number|null, memoryCurrent: number|null, cpuQuota: number|null, oomGroup: boolean|null}} CgroupInfo
 *   oomGroup: v2 `memory.oom.group` is 1: at the limit the kernel's OOM killer ends every process in
 *   the cgroup at once (Kubernetes ≥ 1.28 sets it on cgroup v2), not the one it picked; null when unknown (v1 has none)
 */

/**
 * Where this process's cgroup lives under `root`, once per root: the layout cannot change while
 * we run, and readCgroupMemoryCurrent() is on the poll path.
 * @type {Map<string, {version: 2|1, memDir: string, memBase: string, cpuDir: string, cpuBase: string}|null>}
 */
const layouts = new Map();

/** Memory limit, current usage and CPU quota of the cgroup this process runs in; nulls when unknown. */
export function readCgroup(root = process.env.NODESUP_CGROUP_ROOT ?? DEFAULT_CGROUP_ROOT) {
  const none = { version: null, memoryLimit: null, memoryCurrent: null, cpuQuota: null, oomGroup: null };
  try {
    const at = layout(root);
    if (!at) return none;
    const v2 = at.version === 2;
    return {
      version: at.version,
      // Limits nest: a parent's limit binds us too, so the tightest one up to the root counts.
      memoryLimit: tightest(at.memDir, at.memBase, (dir) => v2 ? readLimit(join(dir, 'memory.max')) : readV1Limit(dir)),
      memoryCurrent: readBytes(join(at.memDir, v2 ? 'memory.current' : 'memory.usage_in_bytes')),
      cpuQuota: tightest(at.cpuDir, at.cpuBase, v2 ? readCpuMax : readCfsQuota),
      // Our own cgroup's: the kubelet sets it on the container's cgroup, which is where we run.
      oomGroup: v2 ? readFlag(join(at.memDir, 'memory.oom.group')) : null,
    };
  } catch {
    return none;
  }
}

/** Current memory use of our cgroup in bytes (one small file read), or null; for the poll tick. */
export function readCgroupMemoryCurrent(root = process.env.NODESUP_CGROUP_ROOT ?? DEFAULT_CGROUP_ROOT) {
  try {
    const at = layout(root);
    if (!at) return null;
    return readBytes(join(at.memDir, at.version === 2 ? 'memory.current' : 'memory.usage_in_bytes'));
  } catch {
    return null;
  }
}

/**
 * How many times the kernel's OOM killer has killed a process in our cgroup (and below it), or
 * null when unknowable: v2 `memory.events` `oom_kill`, v1 `memory.oom_control` `oom_kill`.
 * Read when a worker dies of SIGKILL, to tell the kernel's kill from anyone else's.
 */
export function readOomKills(root = process.env.NODESUP_CGROUP_ROOT ?? DEFAULT_CGROUP_ROOT) {
  try {
    const at = layout(root);
    if (!at) return null;
    const text = readText(join(at.memDir, at.version === 2 ? 'memory.events' : 'memory.oom_control'));
    const m = text === null ? null : /^oom_kill\s+(\d+)$/m.exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** The host's MemAvailable in bytes (/proc/meminfo), or null: the budget where no cgroup limit is set. */
export function readMemAvailable() {
  const m = /^MemAvailable:\s+(\d+) kB$/m.exec(readText('/proc/meminfo') ?? '');
  return m ? Number(m[1]) * 1024 : null;
}

/**
 * Memory free for more workers now, bytes: the cgroup's limit less its usage where a limit is set
 * (the container's budget), else the host's MemAvailable; null when neither can be read.
 */
export function memoryHeadroom(root = process.env.NODESUP_CGROUP_ROOT ?? DEFAULT_CGROUP_ROOT) {
  const { memoryLimit } = readCgroup(root);
  if (memoryLimit !== null) {
    const used = readCgroupMemoryCurrent(root);
    return used === null ? null : Math.max(0, memoryLimit - used);
  }
  return readMemAvailable();
}

function layout(root) {
  if (!layouts.has(root)) layouts.set(root, locate(root));
  return layouts.get(root);
}

function locate(root) {
  // Our own cgroup path only means something under the real mount; a fixture root is the cgroup.
  const own = root === DEFAULT_CGROUP_ROOT ? ownPaths() : {};
  if (isFile(join(root, 'cgroup.controllers'))) {
    const dir = under(root, own.unified);
    return { version: 2, memDir: dir, memBase: root, cpuDir: dir, cpuBase: root };
  }
  const memBase = join(root, 'memory');
  const cpuBase = join(root, 'cpu');
  if (!isDir(memBase) && !isDir(cpuBase)) return null;
  return { version: 1, memDir: under(memBase, own.memory), memBase, cpuDir: under(cpuBase, own.cpu), cpuBase };
}

// /proc/self/cgroup: `0::/path` for v2, `N:memory:/path` (or `N:cpu,cpuacct:/path`) for v1.
function ownPaths() {
  const out = {};
  let text;
  try { text = readFileSync('/proc/self/cgroup', 'utf8'); } catch { return out; }
  for (const line of text.split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === '') out.unified = m[2];
    for (const c of m[1].split(',')) if (c === 'memory' || c === 'cpu') out[c] = m[2];
  }
  return out;
}

// With a private cgroup namespace the mount already is our cgroup and the host path does not exist.
function under(base, path) {
  if (!path || path === '/') return base;
  const dir = join(base, path);
  return isDir(dir) ? dir : base;
}

// Smallest non-null value of read(dir) from `dir` up to and including `base`.
function tightest(dir, base, read) {
  let best = null;
  for (let d = dir; ; d = dirname(d)) {
    const v = read(d);
    if (v !== null && (best === null || v < best)) best = v;
    const rel = relative(base, d);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) break;
  }
  return best;
}

function readV1Limit(dir) {
  const v = readBytes(join(dir, 'memory.limit_in_bytes'));
  return v !== null && v < V1_UNLIMITED ? v : null;
}

function readCpuMax(dir) {
  const text = readText(join(dir, 'cpu.max'));
  if (!text) return null;
  const [quota, period] = text.split(/\s+/);
  return cores(quota === 'max' ? null : Number(quota), Number(period ?? 100000));
}

function readCfsQuota(dir) {
  return cores(readNumber(join(dir, 'cpu.cfs_quota_us')), readNumber(join(dir, 'cpu.cfs_period_us')));
}

// A quota of -1 (v1) or 'max' (v2) means no CPU limit.
function cores(quota, period) {
  if (quota === null || !(quota > 0) || !(period > 0)) return null;
  return quota / period;
}

function readLimit(file) {
  const text = readText(file);
  return text === null || text === 'max' ? null : toBytes(text);
}

function readBytes(file) {
  const text = readText(file);
  return text === null ? null : toBytes(text);
}

function readNumber(file) {
  const text = readText(file);
  if (text === null) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

// "0" or "1"; anything else is unknown.
function readFlag(file) {
  const text = readText(file);
  return text === '1' ? true : text === '0' ? false : null;
}

function toBytes(text) {
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

function readText(file) {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

function isFile(p) {
  try { return statSync(p).isFile(); } catch { return false; }
}

function isDir(p) {
  try { return statSync(p).isDirectory(); } catch { return false; }
}
