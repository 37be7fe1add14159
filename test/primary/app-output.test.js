// The output path in-process: blocks of whole lines, slot prefixes, cut long lines, counted drops.
import test from 'ava';
import { PassThrough, Writable } from 'node:stream';
import { spawn } from 'node:child_process';
import { openSink, routeWorkerOutput } from '../../src/primary/app-output.js';

function collector({ stall = false } = {}) {
  const writes = [];
  const pending = [];
  const target = new Writable({
    highWaterMark: 1,
    write(chunk, _enc, cb) { writes.push(String(chunk)); if (stall) pending.push(cb); else cb(); },
  });
  return { target, writes, pending };
}

test('lines split across reads arrive whole, each write a block of whole lines, prefixed in pretty mode', (t) => {
  const { target, writes } = collector();
  const sink = openSink(target);
  const stdout = new PassThrough();
  routeWorkerOutput({ stdout: sink, stderr: sink, prefix: true }, 3, stdout, null);
  stdout.write('one\ntw');
  stdout.write('o\nthree\nfive\nfou');
  stdout.end('r');
  return new Promise((resolve) => stdout.on('end', resolve)).then(() => {
    t.deepEqual(writes, ['[3] one\n', '[3] two\n', '[3] three\n[3] five\n', '[3] four\n']);
    t.true(writes.every((w) => w.endsWith('\n')));
  });
});

test('a line without a newline is cut at 64 KiB instead of growing the primary', async (t) => {
  const { target, writes } = collector();
  const sink = openSink(target);
  const stdout = new PassThrough();
  routeWorkerOutput({ stdout: sink, stderr: sink, prefix: false }, 0, stdout, null);
  stdout.write('y'.repeat(200 * 1024));
  await new Promise((r) => setImmediate(r));
  t.is(writes.length, 3, 'three whole 64 KiB pieces out, the rest held for its newline');
  t.true(writes.every((w) => w.length === 64 * 1024 + 1 && w.endsWith('\n')));
  stdout.end('\n');
  await new Promise((r) => stdout.on('end', r));
  t.is(writes.join('').replaceAll('\n', '').length, 200 * 1024, 'nothing lost');
});

test('a stalled reader: past the bound whole blocks are dropped and counted, and said once the reader is back', async (t) => {
  const { target, writes, pending } = collector({ stall: true });
  const recovered = [];
  const sink = openSink(target, { maxBuffer: 64 * 1024, onRecovered: (lines, bytes) => recovered.push({ lines, bytes }) });
  const stdout = new PassThrough();
  routeWorkerOutput({ stdout: sink, stderr: sink, prefix: false }, 0, stdout, null);
  const line = `${'z'.repeat(99)}\n`;
  for (let i = 0; i < 50; i++) stdout.write(line.repeat(100)); // 50 reads of 100 lines, 10 KB each
  await new Promise((r) => setImmediate(r));
  t.true(target.writableLength <= 64 * 1024 + 10_000, `queue bounded: ${target.writableLength}`);
  t.true(sink.droppedLines > 0 && sink.droppedLines % 100 === 0, `whole blocks dropped: ${sink.droppedLines}`);
  t.is(sink.droppedBytes, sink.droppedLines * 100);
  const kept = target.writableLength + writes.join('').length;
  t.is(kept / 100 + sink.droppedLines, 5000, 'every line either kept or counted');
  while (pending.length) pending.shift()();
  await new Promise((r) => { const iv = setInterval(() => { if (recovered.length) { clearInterval(iv); r(); } }, 50); });
  t.deepEqual(recovered, [{ lines: sink.droppedLines, bytes: sink.droppedBytes }]);
});

test("a real worker pipe (read into one reused buffer): every line whole and in order, the child's close still comes", async (t) => {
  const { target, writes } = collector();
  const sink = openSink(target);
  const child = spawn(process.execPath, ['-e', "for (let i = 0; i < 20000; i++) process.stdout.write(`line ${i} ${'y'.repeat(i % 700)}\\n`)"], { stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = [];
  routeWorkerOutput({ stdout: sink, stderr: sink, prefix: false }, 0, child.stdout, child.stderr, (c) => tail.push(String(c)));
  await new Promise((resolve) => child.on('close', resolve));
  const lines = writes.join('').split('\n');
  t.is(lines.pop(), '');
  t.is(lines.length, 20000);
  t.true(lines.every((l, i) => l === `line ${i} ${'y'.repeat(i % 700)}`), 'whole, in order, not overwritten by a later read');
  t.deepEqual(tail, []);
});

test("the child's close waits for its pipes' end: a line written after the child exited, by a grandchild holding the pipe, is read before it", async (t) => {
  const { target, writes } = collector();
  const sink = openSink(target);
  // The grandchild inherits the pipe and writes once the child is gone: its exit comes first.
  const source = "require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => console.log(\\'late\\'), 300)'], { stdio: 'inherit' }).unref(); console.log('early')";
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
  routeWorkerOutput({ stdout: sink, stderr: sink, prefix: false }, 0, child.stdout, child.stderr);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await new Promise((resolve) => child.on('close', resolve));
  await exited;
  t.deepEqual(writes.join('').split('\n'), ['early', 'late', '']);
});

test('two real worker pipes read at once through the one shared buffer: each worker\'s lines whole and in order', async (t) => {
  const { target, writes } = collector();
  const sink = openSink(target);
  // Lines of uneven length, so the pipes' reads end mid-line and each stream holds a partial line.
  const source = "for (let i = 0; i < 8000; i++) process.stdout.write(`line ${i} ${'y'.repeat((i * 37) % 900)}\\n`)";
  const children = [0, 1].map((slot) => {
    const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
    routeWorkerOutput({ stdout: sink, stderr: sink, prefix: true }, slot, child.stdout, child.stderr);
    return new Promise((resolve) => child.on('close', resolve));
  });
  await Promise.all(children);
  const all = writes.join('').split('\n');
  t.is(all.pop(), '');
  for (const slot of [0, 1]) {
    const mine = all.filter((l) => l.startsWith(`[${slot}] `)).map((l) => l.slice(`[${slot}] `.length));
    t.is(mine.length, 8000, `slot ${slot}: every line`);
    t.true(mine.every((l, i) => l === `line ${i} ${'y'.repeat((i * 37) % 900)}`), `slot ${slot}: whole, in order, not overwritten by the other's read`);
  }
  t.is(all.length, 16000, 'no line without a slot prefix: none cut into by the other worker\'s bytes');
});
