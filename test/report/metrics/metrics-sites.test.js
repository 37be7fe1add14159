// nodesup_leak_site_bytes_per_second: which code leaks, bounded whatever the app does. Read from
// the read model's rows as a scrape sees them; the HTTP server serves the newest leak profile where
// a profiler's scraper looks for it.
import test from 'ava';
import zlib from 'node:zlib';
import { EventEmitter } from 'node:events';
import { Profile } from 'pprof-format';
import { createMetrics, startMetricsServer } from '../../../src/report/metrics/metrics.js';
import { siteSeries, siteLabel, siteMemory, STALE_MS, TOP_SITES, OTHER } from '../../../src/report/metrics/metrics-sites.js';
import { encodePprof } from '../../../src/report/profiles/pprof.js';
import { MiB, NOW, snapshot, slotView } from '../fake-snapshot.js';

const site = (fn, file, line, bytesPerMin, extra = {}) => ({ fn, file, line, bytesPerMin, share: 0.5, ...extra });
const heapLeak = (sites, extra = {}) => ({ at: NOW - 1000, kind: 'heap', growthBytesPerSec: 2 * MiB / 60, sites, ...extra });

test('a site is its function and file, no line; a library file from its package folder', (t) => {
  t.is(siteLabel({ fn: 'cacheUser', file: 'lib/users.js', line: 4 }), 'cacheUser lib/users.js');
  t.is(siteLabel({ fn: 'send', file: 'node_modules/express/lib/response.js', line: 140, package: 'express@5.3.0' }), 'send express/lib/response.js');
  t.is(siteLabel({ fn: 'set', file: '/srv/app/node_modules/a/node_modules/@s/store/x.js', line: 1 }), 'set @s/store/x.js');
  t.is(siteLabel({ fn: '', file: 'a.js', line: 1 }), '(anonymous) a.js');
  t.is(siteLabel({ fn: 'open', file: 'z.js', line: 3, resource: 'zlib Deflate' }), 'zlib Deflate open z.js');
  t.true(siteLabel({ fn: 'f', file: `/${'d/'.repeat(200)}x.js`, line: 1 }).length <= 200, 'a deep path is cut, not the series');
});

test('the same site in several slots is summed; other kinds apart; handles have their own series', (t) => {
  const s = site('cacheUser', 'lib/users.js', 4, 60 * 1000);
  const snap = snapshot({ slots: [
    slotView(0, { leak: heapLeak([s]) }),
    slotView(1, { leak: heapLeak([{ ...s, line: 5, bytesPerMin: 120 * 1000 }]) }), // the line moved in a deploy: one site still
    slotView(2, { leak: { at: NOW, kind: 'external', growthBytesPerSec: 1000, sites: [site('holdUpload', 'up.js', 13, 6000)] } }),
    slotView(3, { leak: { at: NOW, kind: 'handles', types: [{ type: 'Timeout', perSec: 3 }] } }),
  ] });
  const { series, folded } = siteSeries(snap, NOW);
  t.deepEqual(series, [
    { kind: 'heap', site: 'cacheUser lib/users.js', package: '', holder: '', value: 3000 },
    { kind: 'external', site: 'holdUpload up.js', package: '', holder: '', value: 100 },
  ]);
  t.deepEqual(folded, []);
});

test('at most five sites a kind, the rest summed as "other" and listed as folded', (t) => {
  const sites = Array.from({ length: 8 }, (_, i) => site(`f${i}`, 'a.js', i, (i + 1) * 600, i === 7 ? { package: 'lru@1.0.0', file: 'node_modules/lru/a.js' } : {}));
  const { series, folded } = siteSeries(snapshot({ slots: [slotView(0, { leak: heapLeak(sites) })] }), NOW);
  t.is(TOP_SITES, 5);
  t.deepEqual(series.map((x) => x.site), ['f7 lru/a.js', 'f6 a.js', 'f5 a.js', 'f4 a.js', 'f3 a.js', OTHER]);
  t.is(series[0].package, 'lru@1.0.0');
  t.like(series.at(-1), { kind: 'heap', site: 'other', package: '', holder: '', value: (1 + 2 + 3) * 10 });
  t.deepEqual(folded.map((f) => f.key.split('\u0000')[0]), ['f2 a.js', 'f1 a.js', 'f0 a.js']);
});

test('a site without its own rate takes its share of the leak; a site with neither is left out', (t) => {
  const leak = heapLeak([{ fn: 'a', file: 'a.js', line: 1, share: 0.75 }, { fn: 'b', file: 'b.js', line: 1 }], { growthBytesPerSec: 400 });
  t.deepEqual(siteSeries(snapshot({ slots: [slotView(0, { leak })] }), NOW).series.map((x) => [x.site, x.value]), [['a a.js', 300]]);
});

test('series leave with their leak: an exited worker, a leak not judged current for STALE_MS, a slot leak seen too long', (t) => {
  const s = [site('cacheUser', 'lib/users.js', 4, 600)];
  t.deepEqual(siteSeries(snapshot({ slots: [slotView(0, { state: 'exited', leak: heapLeak(s) })] }), NOW).series, []);
  t.is(siteSeries(snapshot({ slots: [slotView(0, { leak: heapLeak(s, { at: NOW - STALE_MS }) })] }), NOW).series.length, 1);
  t.deepEqual(siteSeries(snapshot({ slots: [slotView(0, { leak: heapLeak(s, { at: NOW - STALE_MS - 1 }) })] }), NOW).series, []);
  // A slot's leak across workers has no judgement time of its own: it is bounded from when it was first seen.
  const memory = siteMemory();
  const slotLeak = () => snapshot({ slots: [slotView(0, { leak: { kind: 'heap', growthBytesPerSec: 10, workersInRow: 2, sites: s } })] });
  t.is(siteSeries(slotLeak(), NOW, memory).series.length, 1);
  t.is(siteSeries(slotLeak(), NOW + STALE_MS, memory).series.length, 1);
  t.deepEqual(siteSeries(slotLeak(), NOW + STALE_MS + 1, memory).series, []);
  // Its successor leaking afresh (another pid) starts its own time.
  const next = snapshot({ slots: [slotView(0, { pid: 5000, leak: { kind: 'heap', growthBytesPerSec: 10, workersInRow: 3, sites: s } })] });
  t.is(siteSeries(next, NOW + STALE_MS + 2, memory).series.length, 1);
  t.deepEqual([...memory.seen.keys()], ['0:5000:heap'], 'the gone worker is forgotten');
});

test('a tick whose verdict carries no sites keeps the sites the same worker\'s leak was named with', (t) => {
  const memory = siteMemory();
  const s = [site('cacheUser', 'lib/users.js', 4, 600)];
  const at = (leak) => snapshot({ slots: [slotView(0, { leak })] });
  t.deepEqual(siteSeries(at(heapLeak(undefined)), NOW, memory).series, [], 'never named: nothing to say');
  t.is(siteSeries(at(heapLeak(s)), NOW, memory).series.length, 1);
  t.deepEqual(siteSeries(at(heapLeak(undefined)), NOW, memory).series.map((x) => x.site), ['cacheUser lib/users.js'], 'the window verdict of the same leak');
  t.deepEqual(siteSeries(at({ ...heapLeak(undefined), kind: 'external' }), NOW, memory).series, [], 'not for another kind');
  t.deepEqual(siteSeries(snapshot({ slots: [slotView(0, { pid: 1, leak: heapLeak(undefined) })] }), NOW, memory).series, [], 'nor for another worker');
});

function exposition(getSnapshot) {
  const metrics = createMetrics({ getSnapshot, events: new EventEmitter(), name: 'api' });
  return { metrics, text: () => metrics.registry.metrics() };
}

test('exposed as the issue shows it: kind, site, package, holder; no pid, slot, line or worker label', async (t) => {
  const lib = site('send', 'node_modules/express/lib/response.js', 140, 162000 * 60, { package: 'express@5.3.0' });
  const { metrics, text } = exposition(() => snapshot({ slots: [slotView(0, { leak: heapLeak([lib]) }), slotView(1)] }));
  t.teardown(() => metrics.close());
  const body = await text();
  t.regex(body, /# HELP nodesup_leak_site_bytes_per_second Growth attributed to an allocation site by the current named leak \(top sites, the rest as "other"\)\./);
  t.true(body.includes('nodesup_leak_site_bytes_per_second{kind="heap",site="send express/lib/response.js",package="express@5.3.0",holder=""} 162000'), body);
  for (const line of body.split('\n').filter((l) => l.startsWith('nodesup_leak_site'))) t.false(/\b(pid|slot|line|worker)="/.test(line), line);
  t.regex(body, /nodesup_leak_sites_folded_total\{kind="heap"\} 0/, 'every kind at 0 from the start');
  t.false(body.includes('nodesup_leak_sites_folded_total{kind="handles"}'), 'handles have no sites');
});

test('the sites of a leak.warning stand for the worker\'s leak until it exits', async (t) => {
  const events = new EventEmitter();
  const metrics = createMetrics({ getSnapshot: () => snapshot({ slots: [slotView(0, { leak: heapLeak(undefined) })] }), events, name: 'api' });
  t.teardown(() => metrics.close());
  const rows = async () => (await metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('nodesup_leak_site_bytes_per_second{'));
  t.deepEqual(await rows(), []);
  events.emit('event', { event: 'leak.warning', slot: 0, pid: 4000, kind: 'heap', sites: [site('cacheUser', 'lib/users.js', 4, 600)] });
  t.deepEqual(await rows(), ['nodesup_leak_site_bytes_per_second{kind="heap",site="cacheUser lib/users.js",package="",holder=""} 10']);
  events.emit('event', { event: 'worker.exit', slot: 0, pid: 4000, planned: true });
  t.deepEqual(await rows(), []);
});

test("a tick's judgement with sites is remembered for the scrapes that land on a tick without", async (t) => {
  const events = new EventEmitter();
  const metrics = createMetrics({ getSnapshot: () => snapshot({ slots: [slotView(0, { leak: heapLeak(undefined) })] }), events, name: 'api' });
  t.teardown(() => metrics.close());
  const rows = async () => (await metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('nodesup_leak_site_bytes_per_second{'));
  events.emit('judged', [{ id: 1, slot: 0, pid: 4001, leak: heapLeak([site('other', 'x.js', 1, 600)]) }]);
  t.deepEqual(await rows(), [], 'another worker\'s');
  events.emit('judged', [{ id: 0, slot: 0, pid: 4000, judged: null, leak: heapLeak([site('cacheUser', 'lib/users.js', 4, 600)]) }]);
  t.deepEqual(await rows(), ['nodesup_leak_site_bytes_per_second{kind="heap",site="cacheUser lib/users.js",package="",holder=""} 10']);
});

test('the folded counter counts each site once, however many scrapes see it folded', async (t) => {
  let n = 6;
  const sites = () => Array.from({ length: n }, (_, i) => site(`f${i}`, 'a.js', i, (i + 1) * 600));
  const { metrics, text } = exposition(() => snapshot({ slots: [slotView(0, { leak: heapLeak(sites()) })] }));
  t.teardown(() => metrics.close());
  const folded = async () => Number(/nodesup_leak_sites_folded_total\{kind="heap"\} (\d+)/.exec(await text())[1]);
  t.is(await folded(), 1);
  t.is(await folded(), 1);
  n = 8;
  t.is(await folded(), 3);
  t.regex(await text(), /nodesup_leak_site_bytes_per_second\{kind="heap",site="other",package="",holder=""\} 60\n/);
});

test('a thousand leaking sites across slots and scrapes stay at six series a kind', async (t) => {
  let round = 0;
  const { metrics, text } = exposition(() => snapshot({
    slots: Array.from({ length: 4 }, (_, slot) => slotView(slot, { pid: 9000 + round * 4 + slot, leak: heapLeak(Array.from({ length: 5 }, (_, i) => site(`f${round}_${slot}_${i}`, 'a.js', i, 600 + i))) })),
  }));
  t.teardown(() => metrics.close());
  for (; round < 50; round++) {
    const lines = (await text()).split('\n').filter((l) => l.startsWith('nodesup_leak_site_bytes_per_second{'));
    t.true(lines.length <= TOP_SITES + 1, `${lines.length} series`);
  }
});

test('GET /debug/pprof/heap: 404 with one line before any profile, then the newest profile as Go serves it', async (t) => {
  const { metrics } = exposition(() => snapshot({ slots: 1 }));
  let latest = null;
  const server = await startMetricsServer({ metrics, host: '127.0.0.1', port: 0, heapProfile: () => latest });
  t.teardown(async () => { await server.close(); metrics.close(); });
  const url = `${server.url}/debug/pprof/heap`;
  const none = await fetch(url);
  t.is(none.status, 404);
  const text = await none.text();
  t.is(text.trim().split('\n').length, 1);
  t.regex(text, /^no heap profile yet/);

  const bytes = encodePprof({ kind: 'heap', reason: 'leak', slot: 0, pid: 1, name: 'api', at: NOW, period: 32768, live: null, named: [site('cacheUser', 'u.js', 4, 6000)] });
  latest = { bytes, at: NOW };
  const res = await fetch(url);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/octet-stream');
  t.is(res.headers.get('last-modified'), new Date(NOW).toUTCString());
  const body = Buffer.from(await res.arrayBuffer());
  t.deepEqual(body, bytes);
  const p = Profile.decode(zlib.gunzipSync(body));
  t.is(p.stringTable.strings[Number(p.function[0].name)], 'cacheUser');
  t.is((await fetch(url, { method: 'HEAD' })).status, 200);
  t.is((await fetch(url, { method: 'POST' })).status, 405);
  t.is((await fetch(`${server.url}/debug/pprof/profile`)).status, 404, 'only the heap is served');
});
