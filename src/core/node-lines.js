// What differs between the Node lines nodesup runs on (20, 22, 24) in ways a config can trip over.
// Each entry is pinned by a test that runs the real binary of the line under test.

/**
 * V8 flags that make a worker abort on some lines. `--no-parallel-marking` fails a V8 check at the
 * first full GC on Node 20 and 22 (SIGTRAP, "Check failed: heap()->concurrent_marking()->IsStopped()",
 * or with --no-concurrent-marking too, "concurrent_marking_handle_ implies …"); Node 24 accepts it.
 */
export const ABORTING_FLAGS = Object.freeze([
  { flag: '--no-parallel-marking', aborts: (major) => major < 24,
    why: 'V8 fails a check at the first full GC', fix: 'drop it (Node 24 accepts it); --no-concurrent-marking alone runs' },
]);

const norm = (f) => f.replace(/_/g, '-').split('=')[0];

/**
 * The first flag among `args` that aborts a worker on Node `version`, or null: {flag, why, fix}.
 * @param {string[]} args  nodeArgs and NODE_OPTIONS, split
 * @param {string} version  process.versions.node
 */
export function abortingFlag(args, version) {
  const major = Number(String(version).split('.')[0]);
  const given = new Set(args.map(norm));
  for (const a of ABORTING_FLAGS) {
    if (given.has(a.flag) && a.aborts(major)) return { flag: a.flag, why: a.why, fix: a.fix };
  }
  return null;
}
