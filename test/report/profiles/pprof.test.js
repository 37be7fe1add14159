// A leak's evidence as pprof and as V8's .heapprofile: what each sample type, label and stack
// holds, read back by pprof-format and by Go's own pprof.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodePprof, heapProfileJson, mergeSites, INUSE, GROWTH } from '../../../src/report/profiles/pprof.js';
import { profileTrigger, evidenceOf, hasSites } from '../../../src/report/profiles/evidence.js';
import { SAMPLING_INTERVAL as HEAP_INTERVAL } from '../../../src/worker/sites/heap-profiler.js';
import { SAMPLING_INTERVAL as BUFFER_INTERVAL } from '../../../src/worker/sites/buffer-sampler.js';
import { decodePprof, goPprof, topRows } from '../../helpers/pprof.js';
import { testWith } from '../../helpers/tools.js';

const MiB = 1024 * 1024;
const AT = Date.UTC(2025, 0, 15, 12, 0, 0);
const cacheUser = { fn: 'cacheUser', file: '/srv/app/users.js', line: 4 };
const storeSet = { fn: 'set', file: 'node_modules/some-store/lib/memory.js', line: 12, package: 'some-store@2.3.1', via: { fn: 'saveSession', file: 'server.js', line: 9 } };
const buildReport = { fn: 'buildReport', file: '/srv/app/report.js', line: 2 };

// A named heap leak (two sites) and what the heap profiler held live when asked.
const evidence = (o = {}) => ({
  kind: 'heap', reason: 'leak', slot: 2, pid: 4242, name: 'api', at: AT, period: 32768,
  named: [{ ...cacheUser, bytesPerMin: 30 * MiB, share: 0.9 }, { ...storeSet, bytesPerMin: 3 * MiB, share: 0.1 }],
  live: { total: 60 * MiB, sites: [{ ...cacheUser, bytes: 50 * MiB }, { ...buildReport, bytes: 200_000 }, { ...storeSet, bytes: 5 * MiB }] },
  ...o,
});

test('inuse_space from the live read, growth_rate from the named leak, the leaking site first', (t) => {
  const p = decodePprof(encodePprof(evidence()));
  t.deepEqual(p.types, [INUSE, GROWTH]);
  t.deepEqual(p.units, ['bytes', 'bytes/s']);
  t.is(p.defaultType, INUSE);
  t.is(p.timeMs, AT);
  t.is(p.period, 32768);
  t.deepEqual(p.samples.map((s) => [s.stack[0].fn, s.values[INUSE], s.values[GROWTH]]), [
    ['cacheUser', 50 * MiB, Math.round((30 * MiB) / 60)],
    ['set', 5 * MiB, Math.round((3 * MiB) / 60)],
    ['buildReport', 200_000, 0], // sampled live, named by no leak: no growth attributed
  ]);
  t.deepEqual(p.samples[0].stack, [cacheUser]);
  t.deepEqual(p.samples[0].labels, { kind: 'heap', reason: 'leak', slot: '2' });
  t.regex(p.comments[0], /^nodesup api: heap leak named, slot 2, pid 4242$/);
});

test("a library site: its package as a label, the app's frame that reached it as its caller", (t) => {
  const p = decodePprof(encodePprof(evidence()));
  const lib = p.samples.find((s) => s.stack[0].fn === 'set');
  t.deepEqual(lib.stack, [{ fn: 'set', file: storeSet.file, line: 12 }, { fn: 'saveSession', file: 'server.js', line: 9 }]);
  t.is(lib.labels.package, 'some-store@2.3.1');
  t.false('pid' in lib.labels, 'no pid label: a profiler would make a series of it');
});

test('without a live read there is no inuse_space, not a zero: the growth alone, as the default', (t) => {
  const p = decodePprof(encodePprof(evidence({ live: null })));
  t.deepEqual(p.types, [GROWTH]);
  t.is(p.defaultType, GROWTH);
  t.deepEqual(p.samples.map((s) => s.stack[0].fn), ['cacheUser', 'set']);
  t.regex(p.comments.join('\n'), /no inuse_space: no sampler ran/);
});

test('mergeSites keeps a site once, with what the named and the live read each know', (t) => {
  const live = { sites: [{ fn: 'set', file: storeSet.file, line: 12, bytes: 100 }] }; // the live read lacks via and package
  const rows = mergeSites(evidence({ live, named: [{ ...storeSet, bytesPerMin: 600 }] }));
  t.is(rows.length, 1);
  t.like(rows[0], { inuse: 100, growth: 10, site: { package: 'some-store@2.3.1', via: storeSet.via } });
  t.deepEqual(mergeSites(evidence({ live: { sites: [{ ...cacheUser, bytes: 0 }] }, named: [] })), [], 'nothing to say of an empty site');
});

test('the V8 .heapprofile: a (root) tree DevTools loads, each site below its via', (t) => {
  const doc = JSON.parse(heapProfileJson(evidence()));
  t.is(doc.head.callFrame.functionName, '(root)');
  t.deepEqual(doc.samples, []);
  const names = doc.head.children.map((c) => c.callFrame.functionName);
  t.deepEqual(names.sort(), ['buildReport', 'cacheUser', 'saveSession']);
  const via = doc.head.children.find((c) => c.callFrame.functionName === 'saveSession');
  t.like(via.children[0], { selfSize: 5 * MiB, callFrame: { functionName: 'set', lineNumber: 11, url: storeSet.file } });
  t.like(doc.head.children.find((c) => c.callFrame.functionName === 'cacheUser'), { selfSize: 50 * MiB, callFrame: { url: 'file:///srv/app/users.js', lineNumber: 3 } });
  const ids = [];
  const walk = (n) => { ids.push(n.id); n.children.forEach(walk); };
  walk(doc.head);
  t.is(new Set(ids).size, ids.length, 'node ids are unique');
});

test('which events leave a profile: heap and external leaks, memory and leak recycles', (t) => {
  const sites = [{ ...cacheUser, bytesPerMin: 600 }];
  t.like(profileTrigger({ event: 'leak.warning', slot: 0, pid: 7, kind: 'heap', sites }), { kind: 'heap', reason: 'leak', slot: 0, pid: 7, named: sites });
  t.like(profileTrigger({ event: 'leak.warning', slot: 0, pid: 7, kind: 'external' }), { kind: 'external', named: [] });
  t.is(profileTrigger({ event: 'leak.warning', slot: 0, pid: 7, kind: 'handles' }), null);
  t.is(profileTrigger({ event: 'leak.warning', slot: 0, pid: 7, kind: 'children' }), null);
  t.like(profileTrigger({ event: 'worker.recycle', slot: 1, pid: 8, reason: 'rss', retained: { kind: 'heap', sites } }), { kind: 'heap', reason: 'rss', named: sites });
  t.like(profileTrigger({ event: 'worker.recycle', slot: 1, pid: 8, reason: 'leak', kind: 'external', sites }), { kind: 'external', reason: 'leak', named: sites });
  t.like(profileTrigger({ event: 'worker.recycle', slot: 1, pid: 8, reason: 'total-rss' }), { kind: 'heap', named: [] });
  for (const reason of ['max-age', 'manual', 'reload', 'unresponsive', 'max-requests']) t.is(profileTrigger({ event: 'worker.recycle', slot: 1, pid: 8, reason }), null, reason);
  t.is(profileTrigger({ event: 'worker.exit', slot: 1, pid: 8 }), null);
});

test("external memory is the Buffer sampler's, at its interval; the rest the heap profiler's", (t) => {
  const read = { profile: { sites: [{ ...cacheUser, bytes: 10 }] }, buffers: { sites: [{ fn: 'holdUpload', file: 'up.js', line: 13, bytes: 99 }] } };
  const ext = evidenceOf({ kind: 'external', reason: 'leak', slot: 0, pid: 1, named: [] }, read, { name: 'api', at: AT });
  t.is(ext.live, read.buffers);
  t.is(ext.period, BUFFER_INTERVAL);
  const heap = evidenceOf({ kind: 'heap', reason: 'rss', slot: 0, pid: 1, named: [] }, read, { name: 'api', at: AT });
  t.is(heap.live, read.profile);
  t.is(heap.period, HEAP_INTERVAL);
  t.is(evidenceOf({ kind: 'heap', reason: 'rss', slot: 0, pid: 1, named: [] }, null, { name: 'api', at: AT }).live, null);
  t.false(hasSites(evidenceOf({ kind: 'heap', reason: 'rss', slot: 0, pid: 1, named: [] }, { profile: null }, { name: 'api', at: AT })));
});

testWith('go')("go tool pprof reads it: the leaking function, its file and line at the top, the package's caller beneath", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodesup-pprof-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'leak.pb.gz');
  fs.writeFileSync(file, encodePprof(evidence()));
  const top = goPprof(file, '-top', '-lines');
  t.falsy(top.error, 'go is on PATH (apt-get install golang-go)');
  t.is(top.status, 0, top.stderr);
  t.regex(top.stdout, /Type: inuse_space/);
  const rows = topRows(top.stdout);
  t.is(rows[0].name, 'cacheUser /srv/app/users.js:4', top.stdout);
  t.is(rows[0].flat, '50MB');
  const growth = goPprof(file, '-top', `-sample_index=${GROWTH}`);
  t.is(growth.status, 0, growth.stderr);
  t.deepEqual(topRows(growth.stdout).map((r) => r.name), ['cacheUser', 'set', 'saveSession']);
  const tags = goPprof(file, '-tags');
  t.regex(tags.stdout, /package: Total/);
  t.regex(tags.stdout, /some-store@2\.3\.1/);
  t.log(top.stdout.trim());
});
