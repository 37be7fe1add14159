// The streaming reader agrees with JSON.parse on a real snapshot whatever the chunking, and a
// truncated or garbled file is a coded error (never a crash or a hang), in-process and in the child.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readSnapshot } from '../../src/retainers/read-snapshot.js';
import { analyseSnapshot } from '../../src/retainers/analyse.js';
import { FIXTURES, tmpDir, writeSnapshot } from './snapshots.js';

const dir = tmpDir(test);
const MAIN = new URL('../../src/retainers/analyse-main.js', import.meta.url).pathname;
const run = promisify(execFile);

test.before(async (t) => {
  t.context.file = await writeSnapshot(path.join(FIXTURES, 'listeners.mjs'), path.join(dir, 'ok.heapsnapshot'));
  t.context.bytes = fs.readFileSync(t.context.file);
});

test('typed arrays and strings equal JSON.parse\'s, whatever the chunk size', async (t) => {
  const whole = JSON.parse(t.context.bytes.toString('utf8'));
  for (const highWaterMark of [997, 64 * 1024, 1 << 20]) {
    const s = await readSnapshot(t.context.file, { highWaterMark });
    t.is(s.nodeCount, whole.snapshot.node_count);
    t.true(same(s.nodes, whole.nodes), `nodes at ${highWaterMark}`);
    t.true(same(s.edges, whole.edges), `edges at ${highWaterMark}`);
    t.true(same(s.locations, whole.locations), `locations at ${highWaterMark}`);
    t.is(JSON.stringify(s.strings), JSON.stringify(whole.strings), `strings at ${highWaterMark}`);
  }
});

/** A typed array equals a plain one: compared as bytes (deepEqual on 10⁵ numbers takes seconds). */
function same(typed, plain) {
  const a = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
  return typed.length === plain.length && a.equals(Buffer.from(Uint32Array.from(plain).buffer));
}

function variant(name, bytes) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

const broken = (bytes) => {
  const text = bytes.toString('latin1');
  const at = (key) => text.indexOf(`"${key}":[`) + key.length + 4;
  const garble = (offset, junk) => Buffer.concat([bytes.subarray(0, offset), Buffer.from(junk), bytes.subarray(offset + junk.length)]);
  return {
    'empty': Buffer.alloc(0),
    'not JSON at all': Buffer.from('hello, world\n'.repeat(1000)),
    'cut in the header': bytes.subarray(0, 200),
    'cut in the nodes': bytes.subarray(0, at('nodes') + 5000),
    'cut in the edges': bytes.subarray(0, at('edges') + 5000),
    'cut in the strings': bytes.subarray(0, at('strings') + 3000),
    'cut before the last brace': bytes.subarray(0, bytes.length - 2),
    'letters in the nodes': garble(at('nodes') + 100, 'xyz'),
    'a quote in the edges': garble(at('edges') + 100, '"'),
    'a header that is not JSON': garble(20, '{{{'),
    'an edge past the last node': Buffer.from(text.replace(/"edges":\[(\d+),(\d+),(\d+)/, '"edges":[$1,$2,4000000000'), 'latin1'),
    'more nodes than the header counts': Buffer.from(text.replace('"nodes":[', '"nodes":[9,1,1,0,0,0,0,'), 'latin1'),
  };
};

test('a truncated or garbled snapshot is NODESUP_ERR_SNAPSHOT, with what to do', async (t) => {
  for (const [name, bytes] of Object.entries(broken(t.context.bytes))) {
    const file = variant(`${name.replace(/\W+/g, '-')}.heapsnapshot`, bytes);
    const err = await t.throwsAsync(analyseSnapshot(file), undefined, name);
    t.is(err?.code, 'NODESUP_ERR_SNAPSHOT', `${name}: ${err?.stack}`);
    t.regex(err?.message ?? '', /write it again/, name);
  }
  const missing = await t.throwsAsync(readSnapshot(path.join(dir, 'none.heapsnapshot')));
  t.is(missing.code, 'NODESUP_ERR_SNAPSHOT');
});

test('the child entry: one JSON line and exit 0; a coded line on stderr and exit 1; bad hints exit 2', async (t) => {
  const ok = await run(process.execPath, ['--max-old-space-size=256', MAIN, t.context.file, '--hints', JSON.stringify({ cwd: FIXTURES, growthBytes: 90_000 })]);
  const lines = ok.stdout.trim().split('\n');
  t.is(lines.length, 1);
  const report = JSON.parse(lines[0]);
  t.is(report.held[0].holder.name, 'shutdown._events.drain');
  t.true(report.peakRssBytes > 10 << 20, String(report.peakRssBytes));
  const bad = await run(process.execPath, [MAIN, variant('cut.heapsnapshot', t.context.bytes.subarray(0, 9000))]).catch((e) => e);
  t.is(bad.code, 1);
  t.is(bad.stdout, '');
  t.regex(bad.stderr, /^NODESUP_ERR_SNAPSHOT: .*truncated.*\n$/);
  const hints = await run(process.execPath, [MAIN, t.context.file, '--hints', '{"kind":"disk"}']).catch((e) => e);
  t.is(hints.code, 2);
  t.regex(hints.stderr, /^NODESUP_ERR_USAGE: .*kind/);
});
