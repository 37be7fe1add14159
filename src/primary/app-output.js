// The workers' stdout and stderr, and the primary's own log, reach the terminal (or the --tui log
// file) through one writer per destination, line by line:
//  - on a pipe or terminal it is the primary's process.stdout (stderr): libuv writes at once while
//    the reader keeps up, so a log line is out before the control reply that follows it, and
//    queues when it lags. The queue is bounded (MAX_BUFFER): past it, whole lines are dropped and
//    counted. A worker that writes as fast as it can never blocks and never grows the primary, and
//    a reader that stalls never blocks the primary's event loop, which hands out connections.
//  - the --tui log file is written synchronously: a file does not stall.
//  - lines of different workers are never interleaved mid-line: each line is one write, and there
//    is one writer per destination.
// The choice is docker's non-blocking log mode: under a stalled reader, output is lost rather than
// requests. What was dropped is said in one `output.dropped` line.
import fs from 'node:fs';
import { Writable } from 'node:stream';

const MAX_BUFFER = 4 * 1024 * 1024;
// Below this much room a chunk is counted as dropped without being split into lines.
const DROP_MARGIN = 256 * 1024;
// A line longer than this is cut: a worker that never writes a newline must not grow the primary.
const MAX_LINE = 64 * 1024;
const CHECK_MS = 1000;
const REPORT_MS = 10_000;

/**
 * A bounded, non-blocking line writer: on a Writable (process.stdout) or, synchronously, a file fd.
 * onRecovered(lines, bytes) says what was dropped, once the drops stop or every REPORT_MS.
 * @param {NodeJS.WritableStream|number} target
 */
export function openSink(target, { maxBuffer = MAX_BUFFER, onRecovered } = {}) {
  const stream = typeof target === 'number' ? null : target;
  stream?.on('error', () => { /* EPIPE: nobody reads us any more; output is best effort */ });
  const sink = {
    droppedLines: 0,
    droppedBytes: 0,
    /** Write one whole line (with its newline); false when it was dropped. */
    line(text) {
      if (!stream) {
        try { fs.writeSync(target, text); } catch { return false; }
        return true;
      }
      if (stream.writableLength > maxBuffer) {
        sink.drop(1, Buffer.byteLength(text));
        return false;
      }
      stream.write(text);
      return true;
    },
    /** pino's destination: every log line through the same writer as the app's lines. */
    stream: new Writable({
      decodeStrings: false,
      write(chunk, _enc, cb) {
        sink.line(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
        cb();
      },
    }),
    /** True while the queue is too long to take more: the reader lags. */
    dropping: () => stream !== null && stream.writableLength > maxBuffer - DROP_MARGIN,
    /** Count lines dropped without writing them. */
    drop(lines, bytes) {
      sink.droppedLines += lines;
      sink.droppedBytes += bytes;
      startReporting();
    },
  };

  // Say what was lost once the drops stop (the reader is back) or every REPORT_MS while they go
  // on: one line, not one per dropped line. Unref'd: it never holds the primary open.
  let reported = { lines: 0, bytes: 0 };
  let timer = null;
  let quietSince = 0;
  let seen = 0;
  let since = 0;
  const check = () => {
    const now = Date.now();
    if (sink.droppedLines !== seen) {
      seen = sink.droppedLines;
      quietSince = now;
      if (now - since < REPORT_MS) return;
    }
    const lines = sink.droppedLines - reported.lines;
    const bytes = sink.droppedBytes - reported.bytes;
    reported = { lines: sink.droppedLines, bytes: sink.droppedBytes };
    since = now;
    if (lines) onRecovered?.(lines, bytes);
    if (now - quietSince >= CHECK_MS) { clearInterval(timer); timer = null; }
  };
  function startReporting() {
    if (timer) return;
    since = Date.now();
    timer = setInterval(check, CHECK_MS);
    timer.unref();
  }
  return sink;
}

/**
 * Route a worker's stdout and stderr, line by line, into the sinks; in pretty mode each line is
 * prefixed with the slot. Returns the worker's stderr tail reader, for the crash-loop report.
 * @param {{stdout: ReturnType<typeof openSink>, stderr: ReturnType<typeof openSink>, prefix: boolean}} out
 * @param {number} slot
 * @param {import('node:stream').Readable|null} stdout
 * @param {import('node:stream').Readable|null} stderr
 * @param {(chunk: Buffer) => void} [onStderr]
 */
export function routeWorkerOutput(out, slot, stdout, stderr, onStderr) {
  const prefix = out.prefix ? `[${slot}] ` : '';
  if (stdout) splitLines(stdout, out.stdout, prefix);
  if (stderr) {
    if (onStderr) stderr.on('data', onStderr);
    splitLines(stderr, out.stderr, prefix);
  }
}

// Calls onLine with each complete line (newline included); a partial line waits for its end,
// up to MAX_LINE, and is written at the stream's end. While the sink is dropping, whole chunks are
// dropped at once (counted, not split): a flood must not cost the primary a string per line.
function splitLines(stream, sink, prefix) {
  let partial = null;
  const emit = (buf) => sink.line(prefix + buf.toString('utf8'));
  stream.on('data', (chunk) => {
    let buf = partial ? Buffer.concat([partial, chunk]) : chunk;
    partial = null;
    if (sink.dropping()) {
      const last = buf.lastIndexOf(10);
      sink.drop(last === -1 ? 0 : countNewlines(buf, last), last + 1);
      buf = buf.subarray(last + 1);
    } else {
      let start = 0;
      for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, start)) {
        emit(buf.subarray(start, nl + 1));
        start = nl + 1;
      }
      buf = buf.subarray(start);
    }
    while (buf.length > MAX_LINE) {
      emit(Buffer.concat([buf.subarray(0, MAX_LINE), NL]));
      buf = buf.subarray(MAX_LINE);
    }
    // A copy: the rest of a big chunk must not keep the whole chunk alive.
    if (buf.length) partial = Buffer.from(buf);
  });
  stream.on('end', () => {
    if (partial) emit(Buffer.concat([partial, NL]));
    partial = null;
  });
  stream.on('error', () => { /* the worker died; its exit is reported elsewhere */ });
}

const NL = Buffer.from('\n');

function countNewlines(buf, end) {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1 && i <= end; i = buf.indexOf(10, i + 1)) n++;
  return n;
}
