// The analyser's one failure kind: a file that is not a readable V8 heap snapshot.
import { NodesupError } from '../errors.js';

export const SNAPSHOT_ERROR = 'NODESUP_ERR_SNAPSHOT';

/**
 * A snapshot that cannot be read or makes no sense as a V8 heap snapshot.
 * @param {string} file @param {string} what what was wrong, in a few words
 * @param {{ cause?: unknown }} [opts]
 */
export function snapshotError(file, what, { cause } = {}) {
  return new NodesupError(SNAPSHOT_ERROR, `${file}: not a readable V8 heap snapshot: ${what}; write it again with v8.writeHeapSnapshot() and let it finish before analysing it`, { cause });
}
