// The workers' stdout and stderr, and the primary's own log, reach the terminal (or the --tui log
// file) through one writer per destination, line by line:
//  - on a pipe or terminal it is the primary's process.stdout (stderr): libuv writes at once while
//    the reader keeps up, so a log line is out before the control reply that follows it, and
//    queues when it lags. The queue is bounded (MAX_BUFFER): past it, whole lines are dropped and
//    counted. A worker that writes as fast as it can never blocks and never grows the primary, and
//    a reader that stalls never blocks the primary's event loop, which hands out connections.
//  - the --tui log file is written synchronously: a file does not stall.
//  - lines of different workers are never interleaved mid-line: each write is a block of whole
//    lines (all the whole lines of one read), and there is one writer per destination.
//  - a flood costs the primary no allocation per read or per write: the workers' pipes are read
//    into one reused buffer (net.Socket's onread), a block the pipe takes at once is written from it
//    (fs.writeSync on the non-blocking fd), and one that must wait is copied into one fixed ring
//    (byte-ring.js). A string per line, then a Buffer per read, had taken the primary to 150 MiB
//    here under a flood, and past 300 MiB on a faster machine; now it stays near its idle size.
// The choice is docker's non-blocking log mode: under a stalled reader, output is lost rather than
// requests. What was dropped is said in one `output.dropped` line.
import fs from 'node:fs';
import net from 'node:net';
import { Writable } from 'node:stream';
import { byteRing } from './byte-ring.js';

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
    /**
     * Write whole lines (each with its newline) as one write; false when they were dropped.
     * @type {(text: string|Buffer, lines?: number|(() => number)) => boolean}
     *   lines: how many lines text holds, for the drop count: a function is called only on a
     *   drop, so a block that is written is not scanned for it
     */
    line: stream ? streamWriter(stream, maxBuffer, (lines, bytes) => sink.drop(lines, bytes)) : fileWriter(target),
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
  const startReporting = dropReporter(sink, onRecovered);
  return sink;
}

// The --tui log file: a file does not stall, so it is written at once.
function fileWriter(fd) {
  return (text) => {
    try { fs.writeSync(fd, text); } catch { return false; }
    return true;
  };
}

function streamWriter(stream, maxBuffer, drop) {
  // process.stdout's own fd (non-blocking on a pipe): a write that the pipe takes at once needs
  // no copy of a worker's read buffer.
  const fd = typeof stream.fd === 'number' ? stream.fd : null;
  const ring = byteRing(maxBuffer);
  return (text, lines = 1) => {
    if (stream.writableLength > maxBuffer) {
      drop(count(lines), Buffer.byteLength(text));
      return false;
    }
    if (typeof text === 'string') {
      stream.write(text);
      return true;
    }
    if (fd !== null && stream.writableLength === 0) {
      // Nothing queued: write now, and keep only what the pipe did not take.
      let n = 0;
      try { n = fs.writeSync(fd, text); } catch (e) { if (e.code !== 'EAGAIN') return false; }
      if (n > 0) {
        // Half a block is out: the rest goes too, so no line is cut.
        if (n < text.length) queueRest(stream, ring, text.subarray(n));
        return true;
      }
    }
    const view = ring.copyIn(text);
    if (!view) {
      drop(count(lines), text.length);
      return false;
    }
    stream.write(view, ring.release);
    return true;
  };
}

function queueRest(stream, ring, rest) {
  const view = ring.copyIn(rest);
  if (view) stream.write(view, ring.release);
  else stream.write(Buffer.from(rest));
}

// Say what was lost once the drops stop (the reader is back) or every REPORT_MS while they go
// on: one line, not one per dropped line. Unref'd: it never holds the primary open. Returns what
// a drop calls to make sure it is watched.
function dropReporter(sink, onRecovered) {
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
  return function startReporting() {
    if (timer) return;
    since = Date.now();
    timer = setInterval(check, CHECK_MS);
    timer.unref();
  };
}

/**
 * Route a worker's stdout and stderr, line by line, into the sinks; in pretty mode each line is
 * prefixed with the slot. Returns the worker's stderr tail reader, for the crash-loop report.
 * @param {{stdout: ReturnType<typeof openSink>, stderr: ReturnType<typeof openSink>, prefix: boolean}} out
 * @param {number} slot
 * @param {import('node:stream').Readable|null} stdout
 * @param {import('node:stream').Readable|null} stderr
 * @param {(chunk: Buffer) => void} [onStderr] called with each read of stderr, a view valid only during the call
 */
export function routeWorkerOutput(out, slot, stdout, stderr, onStderr) {
  const prefix = out.prefix ? `[${slot}] ` : '';
  if (stdout) splitLines(stdout, out.stdout, prefix);
  if (stderr) splitLines(stderr, out.stderr, prefix, onStderr);
}

// Writes the complete lines of each read as one block; a partial line waits for its end, up to
// MAX_LINE, and is written at the stream's end. While the sink is dropping, whole reads are
// dropped at once (counted, not written).
function splitLines(stream, sink, prefix, onChunk) {
  const pre = prefix ? Buffer.from(prefix) : null;
  const emit = (block) => sink.line(pre ? prefixed(block, pre) : block, () => countNewlines(block, block.length - 1));
  // The start of a line whose end has not come yet: copied into one buffer kept for the stream
  // (no allocation per read), or, while dropping, skipped and only its length kept.
  let held = null;
  let heldLen = 0;
  let skipped = -1; // bytes of a dropped line so far; -1 when not skipping
  const take = (chunk) => {
    onChunk?.(chunk);
    let start = 0;
    const first = chunk.indexOf(10);
    if (first === -1) return hold(chunk);
    if (skipped !== -1) {
      sink.drop(1, skipped + first + 1);
      skipped = -1;
      start = first + 1;
    } else if (heldLen) {
      if (heldLen + first + 1 <= held.length) {
        chunk.copy(held, heldLen, 0, first + 1);
        emit(held.subarray(0, heldLen + first + 1));
      } else emit(Buffer.concat([held.subarray(0, heldLen), chunk.subarray(0, first + 1)]));
      heldLen = 0;
      start = first + 1;
    }
    const last = chunk.lastIndexOf(10);
    if (last >= start) {
      if (sink.dropping()) sink.drop(countNewlines(chunk.subarray(start), last - start), last + 1 - start);
      else emit(chunk.subarray(start, last + 1));
    }
    if (last + 1 < chunk.length) hold(chunk.subarray(last + 1));
  };
  const hold = (rest) => {
    if (skipped !== -1) { skipped += rest.length; return; }
    if (!heldLen && sink.dropping()) { skipped = rest.length; return; }
    held ??= Buffer.allocUnsafe(MAX_LINE);
    for (let off = 0; off < rest.length;) {
      if (heldLen === MAX_LINE) { emit(Buffer.concat([held, NL])); heldLen = 0; }
      const n = Math.min(MAX_LINE - heldLen, rest.length - off);
      rest.copy(held, heldLen, off, off + n);
      heldLen += n;
      off += n;
    }
  };
  const end = () => {
    if (heldLen) emit(Buffer.concat([held.subarray(0, heldLen), NL]));
    else if (skipped > 0) sink.drop(1, skipped);
    heldLen = 0;
  };
  readInto(stream, take, end);
}

// A pipe from a worker is read into one buffer shared by every pipe; any other stream (a test's
// PassThrough) through 'data'. Shared, since a read's callback runs alone on the event loop and
// take() is done with the bytes when it returns (written, or copied into the ring or the held
// line): a buffer per pipe held 64 KiB for each worker's stdout and each stderr (16 MiB at 128
// workers). The child's own Socket hands its handle over and is closed, without touching it, only
// once the reader has read the pipe to its end: child_process's 'close' then still means every
// line is read (a crash's last stderr lines, a grandchild's output), not only that the child exited.
const READ_BUFFER = 64 * 1024;
/** @type {Buffer|null} */
let readBuffer = null;
function readInto(stream, take, end) {
  const handle = /** @type {any} */ (stream)._handle;
  if (stream instanceof net.Socket && typeof handle?.useUserBuffer === 'function') {
    const reader = new net.Socket({
      handle,
      readable: true,
      writable: false,
      onread: { buffer: (readBuffer ??= Buffer.allocUnsafe(READ_BUFFER)), callback: (n, buf) => { take(buf.subarray(0, n)); } },
    });
    /** @type {any} */ (stream)._handle = null;
    reader.on('close', () => stream.destroy());
    reader.on('end', end);
    reader.on('error', () => { /* the worker died; its exit is reported elsewhere */ });
    return;
  }
  stream.on('data', take);
  stream.on('end', end);
  stream.on('error', () => { /* the worker died; its exit is reported elsewhere */ });
}

/** Each line of a block of whole lines, prefixed: one Buffer. */
function prefixed(block, pre) {
  const parts = [];
  let start = 0;
  for (let nl = block.indexOf(10); nl !== -1; nl = block.indexOf(10, start)) {
    parts.push(pre, block.subarray(start, nl + 1));
    start = nl + 1;
  }
  return Buffer.concat(parts);
}

const NL = Buffer.from('\n');
const count = (lines) => (typeof lines === 'function' ? lines() : lines);

function countNewlines(buf, end) {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1 && i <= end; i = buf.indexOf(10, i + 1)) n++;
  return n;
}
