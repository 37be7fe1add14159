// The analyser's one failure kind. `NODESUP_ERR_SNAPSHOT` is not (yet) in src/errors.js's registry,
// and NodesupError refuses unregistered codes, so the error is built here with the same shape
// (code, exitCode, message that says what to do) until the registry carries it.

export const SNAPSHOT_ERROR = 'NODESUP_ERR_SNAPSHOT';

/**
 * A snapshot that cannot be read or makes no sense as a V8 heap snapshot.
 * @param {string} file @param {string} what what was wrong, in a few words
 * @param {{ cause?: unknown }} [opts]
 */
export function snapshotError(file, what, { cause } = {}) {
  const err = new Error(`${file}: not a readable V8 heap snapshot: ${what}; write it again with v8.writeHeapSnapshot() and let it finish before analysing it`, { cause });
  err.name = 'SnapshotError';
  err.code = SNAPSHOT_ERROR;
  err.exitCode = 1;
  return err;
}
