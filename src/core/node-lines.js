// What differs between the Node lines nodesup runs on (20, 22, 24, 26): flags a config can trip
// over, and the APIs nodesup uses where a line has them. Each entry is pinned by a test that runs
// the real binary of the line under test (test/core/node-lines.test.js).

/**
 * Flags that make a worker abort, or never start, on some lines. `--no-parallel-marking` fails a V8 check at the
 * first full GC on Node 20 and 22 (SIGTRAP, "Check failed: heap()->concurrent_marking()->IsStopped()",
 * or with --no-concurrent-marking too, "concurrent_marking_handle_ implies …"); Node 24 accepts it.
 */
export const ABORTING_FLAGS = Object.freeze([
  { flag: '--no-parallel-marking', aborts: (major) => major < 24, cause: 'v8-check' },
  // Added in 22.7, gone again in 26: there a worker given it never starts ("bad option").
  { flag: '--experimental-transform-types', aborts: (major) => major < 22 || major >= 26, cause: 'unknown-flag' },
]);

const norm = (f) => f.replace(/_/g, '-').split('=')[0];

/**
 * The first flag among `args` that aborts a worker on Node `version`, or null: {flag, cause}
 * (`v8-check`: V8 fails a check at the first full GC; `unknown-flag`: this Node refuses it).
 * @param {string[]} args  nodeArgs and NODE_OPTIONS, split
 * @param {string} version  process.versions.node
 */
export function abortingFlag(args, version) {
  const major = Number(String(version).split('.')[0]);
  const given = new Set(args.map(norm));
  for (const a of ABORTING_FLAGS) {
    if (given.has(a.flag) && a.aborts(major)) return { flag: a.flag, cause: a.cause };
  }
  return null;
}

/**
 * APIs nodesup uses where the line has them, with the first version that has each. The code
 * feature-detects (typeof); this table says which lines get what, and its test keeps it true.
 */
export const SINCE = Object.freeze({
  // Thread heaps: without it a worker_thread's heap is unknown (null), and only the count is known.
  'Worker#getHeapStatistics': [22, 16],
  // In-process heap sampling without an inspector session: the heap profiler's way in where the
  // inspector is denied (--permission without --allow-inspector), and the one way to tell that the
  // app already samples the heap (it throws ERR_HEAP_PROFILE_HAVE_BEEN_STARTED; the inspector does not).
  'v8.startHeapProfile': [26, 0],
  // Node's permission model under its stable flag; Node 20 only has --experimental-permission,
  // which 22 still accepts and 24 refuses.
  '--permission': [22, 0],
});

/**
 * Whether Node `version` has `api` (a key of SINCE).
 * @param {keyof typeof SINCE} api @param {string} version  process.versions.node
 */
export function has(api, version) {
  const [major, minor] = String(version).split('.').map(Number);
  const [m, n] = SINCE[api];
  return major > m || (major === m && minor >= n);
}
