// The profile writer on a plain event stream: a profile for each named heap or external leak and
// each memory recycle, the worker's live sites asked for, the newest kept for /debug/pprof/heap,
// and a full disk said once.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { createProfileWriter } from '../../../src/report/profiles/profile-writer.js';
import { diagnoseDir, BOUNDS } from '../../../src/report/profiles/diagnose-dir.js';
import { decodePprof } from '../../helpers/pprof.js';

const MiB = 1024 * 1024;
const sites = [{ fn: 'cacheUser', file: 'users.js', line: 4, bytesPerMin: 6 * MiB, share: 1 }];

function setup(t, { readLive = async () => ({ profile: { total: 9 * MiB, sites: [{ fn: 'cacheUser', file: 'users.js', line: 4, bytes: 9 * MiB }] } }), statfs } = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nodesup-writer-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const events = new EventEmitter();
  const lines = [];
  const asked = [];
  let clock = Date.UTC(2025, 0, 1);
  const dir = diagnoseDir(path.join(root, 'api'), { statfs: statfs ?? (() => ({ bavail: 1e9, bsize: 4096 })), bounds: BOUNDS });
  const writer = createProfileWriter({
    events, name: 'api', dir, now: () => (clock += 1000),
    readLive: (x) => { asked.push(x); return readLive(x); },
    report: (level, fields, msg) => lines.push({ level, fields, msg }),
  });
  t.teardown(() => writer.close());
  const emit = async (fields) => {
    events.emit('event', fields, { level: 'warn', time: clock });
    await writer.settled();
  };
  return { events, writer, dir, lines, asked, emit };
}

test('a named heap leak: its profile written with the live sites, said in one log line, kept as the newest', async (t) => {
  const { writer, dir, lines, asked, emit } = setup(t);
  t.is(writer.latest(), null);
  await emit({ event: 'leak.warning', slot: 0, pid: 4242, kind: 'heap', growthBytesPerSec: 100_000, sites });
  t.deepEqual(asked, [{ kind: 'heap', reason: 'leak', slot: 0, pid: 4242, named: sites }]);
  const [file] = dir.list();
  t.regex(path.basename(file.file), /^nodesup-api-\d{8}T\d{6}\.\d{3}Z-slot0-heap-leak\.pb\.gz$/);
  const p = decodePprof(fs.readFileSync(file.file));
  t.like(p.samples[0], { stack: [{ fn: 'cacheUser', file: 'users.js', line: 4 }], values: { inuse_space: 9 * MiB, growth_rate: Math.round(6 * MiB / 60) } });
  t.deepEqual(writer.latest().bytes, fs.readFileSync(file.file));
  t.like(writer.latest(), { slot: 0, kind: 'heap', reason: 'leak', sites: 1, inuse: true });
  t.is(lines.length, 1);
  t.like(lines[0], { level: 'info', fields: { slot: 0, pid: 4242, profile: { file: file.file, kind: 'heap', reason: 'leak', inuse: true } } });
  t.is(lines[0].msg, `slot 0: pprof profile of the heap leak written to ${file.file} (go tool pprof -top ${file.file})`);
});

test('a memory recycle whose worker no longer answers: the event\'s own sites, growth only', async (t) => {
  const { dir, writer, emit } = setup(t, { readLive: async () => null });
  await emit({ event: 'worker.recycle', slot: 1, pid: 7, reason: 'rss', retained: { kind: 'heap', bytesPerMin: 6 * MiB, sites } });
  const p = decodePprof(fs.readFileSync(dir.list()[0].file));
  t.deepEqual(p.types, ['growth_rate']);
  t.deepEqual(p.samples[0].labels, { kind: 'heap', reason: 'rss', slot: '1' });
  t.false(writer.latest().inuse);
});

test('a worker whose read throws still leaves the event\'s profile; nothing at all leaves none', async (t) => {
  const { dir, emit } = setup(t, { readLive: async () => { throw new Error('gone'); } });
  await emit({ event: 'leak.warning', slot: 0, pid: 1, kind: 'external', sites });
  t.is(dir.list().length, 1);
  await emit({ event: 'worker.recycle', slot: 0, pid: 2, reason: 'heap' }); // no sites anywhere
  t.is(dir.list().length, 1);
});

test('a leak said again without sites keeps the growth its worker\'s leak was named with, until the worker exits', async (t) => {
  const { dir, emit } = setup(t, { readLive: async () => null });
  await emit({ event: 'leak.warning', slot: 0, pid: 5, kind: 'heap', sites });
  await emit({ event: 'leak.warning', slot: 0, pid: 5, kind: 'heap', growthBytesPerSec: 1 }); // the window's verdict
  const files = dir.list();
  t.is(files.length, 2);
  t.deepEqual(decodePprof(fs.readFileSync(files[1].file)).samples.map((x) => x.stack[0].fn), ['cacheUser']);
  await emit({ event: 'worker.exit', slot: 0, pid: 5 });
  await emit({ event: 'leak.warning', slot: 0, pid: 5, kind: 'heap', growthBytesPerSec: 1 });
  t.is(dir.list().length, 2, 'forgotten with its worker: nothing to write');
});

test('events that leave no profile are not asked about', async (t) => {
  const { dir, asked, emit } = setup(t);
  for (const ev of [
    { event: 'worker.recycle', slot: 0, pid: 1, reason: 'max-age' },
    { event: 'worker.recycle', slot: 0, pid: 1, reason: 'reload' },
    { event: 'leak.warning', slot: 0, pid: 1, kind: 'handles', types: [] },
    { event: 'worker.exit', slot: 0, pid: 1 },
    { msg: 'a plain line' },
  ]) await emit(ev);
  t.deepEqual(asked, []);
  t.deepEqual(dir.list(), []);
});

test('external: the Buffer sampler\'s sites are asked for and used', async (t) => {
  const buffers = { total: 5 * MiB, sites: [{ fn: 'holdUpload', file: 'up.js', line: 13, bytes: 5 * MiB }] };
  const { dir, asked, emit } = setup(t, { readLive: async ({ kind }) => (kind === 'external' ? { profile: null, buffers } : null) });
  await emit({ event: 'leak.warning', slot: 0, pid: 1, kind: 'external', sites: [{ fn: 'holdUpload', file: 'up.js', line: 13, bytesPerMin: MiB }] });
  t.is(asked[0].kind, 'external');
  const p = decodePprof(fs.readFileSync(dir.list()[0].file));
  t.is(p.period, 128 * 1024);
  t.like(p.samples[0], { values: { inuse_space: 5 * MiB } });
});

test('a full disk: said once, not at every leak; the newest profile is still served', async (t) => {
  const { dir, writer, lines, emit } = setup(t, { statfs: () => ({ bavail: 1, bsize: 4096 }) });
  for (let i = 0; i < 3; i++) await emit({ event: 'leak.warning', slot: 0, pid: 1 + i, kind: 'heap', sites });
  t.deepEqual(dir.list(), []);
  t.is(lines.length, 1);
  t.like(lines[0], { level: 'warn', fields: { err: { code: 'NODESUP_ERR_NO_ROOM' } } });
  t.regex(lines[0].msg, /^no pprof profile written: .* MiB free/);
  t.truthy(writer.latest()?.bytes);
});

test('close() stops listening', async (t) => {
  const { writer, asked, emit } = setup(t);
  writer.close();
  await emit({ event: 'leak.warning', slot: 0, pid: 1, kind: 'heap', sites });
  t.deepEqual(asked, []);
});
