// The app's output during a check goes to our stderr (stdout is the report's), through a stream
// that also keeps its last lines: an app that dies before it is ready is reported by its error's
// own line ("Error: connect ECONNREFUSED …"), not by "see above".
import { Writable } from 'node:stream';

const KEEP_BYTES = 8192;
const IPC_CLOSED = /\[ERR_IPC_(?:CHANNEL_CLOSED|DISCONNECTED)\]/;

/**
 * A Writable onto `target` that remembers the last KEEP_BYTES written. Each write completes when
 * the target has taken it, so the supervisor's bounded sink (app-output.js) sees a slow reader.
 * @param {NodeJS.WritableStream} target
 */
export function teeWithTail(target) {
  let tail = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      // A copy: the sink hands out views of a ring it reuses once this write completes.
      const copy = Buffer.from(chunk);
      tail = (tail + copy.toString('utf8')).slice(-KEEP_BYTES);
      if (target.write(copy)) cb();
      else target.once('drain', () => cb());
    },
  });
  return { stream, errorLine: () => errorLine(tail) };
}

/**
 * The line that names an error in an app's last output: a thrown error's "TypeError: …", else
 * the last line that is not a stack frame or Node's version banner; null when there is none.
 */
export function errorLine(text) {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const isThrown = (l) => /^(?:[A-Z]\w*)?(?:Error|Exception)\b(?: \[[\w-]+\])?:/.test(l);
  // A worker still exiting when the check's stop disconnects it may throw Node's own "Channel
  // closed" after the app's error: that one is ours, not the app's.
  const thrown = lines.findLast((l) => isThrown(l) && !IPC_CLOSED.test(l)) ?? lines.findLast(isThrown);
  if (thrown) return thrown;
  return lines.findLast((l) => !/^at\s/.test(l) && !/^Node\.js v\d/.test(l) && !/^\^+$/.test(l)) ?? null;
}
