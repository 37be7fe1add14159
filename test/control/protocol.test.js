// The one line reader and writer of the control socket, used by both ends: chunks in any split,
// over-long lines, CRLF, UTF-8 split across chunks.
import test from 'ava';
import { frame, lineReader } from '../../src/control/protocol.js';

/** Feed `chunks` (strings or Buffers) to a reader; what came out, and whether it overflowed. */
function read(chunks, { maxBytes = 64, end = false } = {}) {
  const lines = [];
  let overflows = 0;
  const reader = lineReader({ maxBytes, onLine: (l) => lines.push(l), onOverflow: () => overflows++ });
  for (const c of chunks) reader.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  if (end) reader.end();
  return { lines, overflows, pending: reader.pending };
}

const bytesOf = (s) => [...Buffer.from(s)].map((b) => Buffer.from([b]));

const SPLITS = [
  ['one chunk, two lines', ['{"a":1}\n{"b":2}\n'], ['{"a":1}', '{"b":2}']],
  ['a line over three chunks', ['{"a"', ':', '1}\n'], ['{"a":1}']],
  ['the newline alone in the next chunk', ['{"a":1}', '\n'], ['{"a":1}']],
  ['a chunk ending one line and starting the next', ['x\ny', 'z\n'], ['x', 'yz']],
  ['byte by byte', bytesOf('ab\ncd\n'), ['ab', 'cd']],
  ['blank lines are lines (the server skips them)', ['\n\nx\n'], ['', '', 'x']],
  ['an unfinished line waits', ['x\nyz'], ['x']],
];
for (const [name, chunks, want] of SPLITS) {
  test(`split chunks: ${name}`, (t) => {
    t.deepEqual(read(chunks).lines, want);
  });
}

const CRLF = [
  ['CRLF ends a line without its CR', ['a\r\nb\r\n'], ['a', 'b']],
  ['CR and LF in two chunks', ['a\r', '\nb\n'], ['a', 'b']],
  ['a CR inside a line stays', ['a\rb\n'], ['a\rb']],
  ['only the last CR goes', ['a\r\r\n'], ['a\r']],
];
for (const [name, chunks, want] of CRLF) {
  test(`CRLF: ${name}`, (t) => {
    t.deepEqual(read(chunks).lines, want);
  });
}

test('UTF-8: a character split across chunks stays whole, at every split point', (t) => {
  const text = 'é€😀 slot ünïcödé';
  const bytes = Buffer.from(`${text}\n`);
  for (let i = 1; i < bytes.length; i++) {
    t.deepEqual(read([bytes.subarray(0, i), bytes.subarray(i)]).lines, [text], `split at byte ${i}`);
  }
  t.deepEqual(read(bytesOf(`${text}\n`)).lines, [text], 'byte by byte');
  t.false(read(bytesOf(`${text}\n`)).lines[0].includes('\uFFFD'), 'no replacement character');
});

const LONG = [
  // [name, chunks, maxBytes, lines, overflows]
  ['exactly maxBytes is fine', ['x'.repeat(8), '\n'], 8, ['xxxxxxxx'], 0],
  ['exactly maxBytes with CRLF is fine', ['x'.repeat(8), '\r\n'], 8, ['xxxxxxxx'], 0],
  ['exactly maxBytes, its CR in the last chunk', ['x'.repeat(8), '\r'], 8, [], 0],
  ['one byte over, unfinished', ['x'.repeat(9)], 8, [], 1],
  ['one byte over, complete in one chunk', [`${'x'.repeat(9)}\nok\n`], 8, [], 1],
  ['over across chunks, counted per line', ['xxxxx', 'xxxxx'], 8, [], 1],
  ['lines before the long one are read, nothing after', ['ok\n', `${'x'.repeat(20)}\n`, 'late\n'], 8, ['ok'], 1],
  ['many short lines never add up', [Array(100).fill('1234567').join('\n') + '\n'], 8, Array(100).fill('1234567'), 0],
  ['overflow is reported once', ['x'.repeat(20), 'y'.repeat(20), '\n'], 8, [], 1],
];
for (const [name, chunks, maxBytes, want, overflows] of LONG) {
  test(`over-long lines: ${name}`, (t) => {
    const got = read(chunks, { maxBytes });
    t.deepEqual(got.lines, want);
    t.is(got.overflows, overflows);
  });
}

test('over-long lines: nothing is held after an overflow', (t) => {
  const got = read(['x'.repeat(100), 'y'.repeat(100)], { maxBytes: 8 });
  t.is(got.pending, 0);
});

test('end(): a last line without its newline counts; nothing pending, no line', (t) => {
  t.deepEqual(read(['a\nb'], { end: true }).lines, ['a', 'b']);
  t.deepEqual(read(['a\n'], { end: true }).lines, ['a']);
  t.deepEqual(read(['x'.repeat(20)], { maxBytes: 8, end: true }).lines, [], 'not after an overflow');
});

test('frame is the writer the reader reads: one line per message, whatever it holds', (t) => {
  const messages = [{ v: 1, id: 1, op: 'ping', args: {} }, { text: 'two\nlines\r\n', euro: '€' }, null, 'x'];
  const wire = Buffer.from(messages.map(frame).join(''));
  t.is(wire.toString().split('\n').length, messages.length + 1, 'newlines inside strings are escaped');
  const got = read([wire.subarray(0, 7), wire.subarray(7)], { maxBytes: 1024 }).lines.map((l) => JSON.parse(l));
  t.deepEqual(got, messages);
});
