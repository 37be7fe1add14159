// The analyser names what holds the memory, on snapshots written by tiny apps: the holder's
// variable, its file and line, the package it lives in, and the leak before a bigger steady cache.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { analyseSnapshot } from '../../src/retainers/analyse.js';
import { describeHolder } from '../../src/report/retainer-words.js';
import { FIXTURES, tmpDir, writeSnapshot, lineOf } from './snapshots.js';

const dir = tmpDir(test);
const fixture = (name) => path.join(FIXTURES, name);

/** The fake package is copied under node_modules at run time: the repository ignores node_modules/. */
function packageApp() {
  const app = path.join(dir, 'pkg-app');
  fs.mkdirSync(path.join(app, 'node_modules'), { recursive: true });
  fs.cpSync(fixture('fakepkg'), path.join(app, 'node_modules', 'fakepkg'), { recursive: true });
  fs.copyFileSync(fixture('package-app.cjs'), path.join(app, 'app.cjs'));
  fs.copyFileSync(fixture('histogram-app.cjs'), path.join(app, 'histogram.cjs'));
  return app;
}

test.before(async (t) => {
  const app = packageApp();
  const [requests, mapCache, listeners, pkg, stable, histogram, importedA, importedB] = await Promise.all([
    writeSnapshot(fixture('requests.mjs'), path.join(dir, 'requests.heapsnapshot')),
    writeSnapshot(fixture('map-cache/app.mjs'), path.join(dir, 'map-cache.heapsnapshot')),
    writeSnapshot(fixture('listeners.mjs'), path.join(dir, 'listeners.heapsnapshot')),
    writeSnapshot(path.join(app, 'app.cjs'), path.join(dir, 'package.heapsnapshot')),
    writeSnapshot(fixture('stable-cache.mjs'), path.join(dir, 'stable.heapsnapshot')),
    writeSnapshot(path.join(app, 'histogram.cjs'), path.join(dir, 'histogram.heapsnapshot')),
    writeSnapshot(fixture('imported-emitter/app-helper-first.mjs'), path.join(dir, 'imported-a.heapsnapshot')),
    writeSnapshot(fixture('imported-emitter/app-package-first.mjs'), path.join(dir, 'imported-b.heapsnapshot')),
  ]);
  t.context = { requests, mapCache, listeners, pkg, stable, histogram, imported: [importedA, importedB], app };
});

const say = (h) => `${h.holder.name} (${h.path.join(' → ')}) ${h.count} ${h.type} ${h.bytes} B`;

test('a module-level array of requests: its variable, the request type, its declaring file:line', async (t) => {
  const report = await analyseSnapshot(t.context.requests, { kind: 'heap', growthBytes: 400 * 800, cwd: FIXTURES });
  const [first] = report.held;
  t.truthy(first, 'a holder');
  t.deepEqual(first.path, ['(module) requests.mjs', 'recentRequests', 'Array'], say(first));
  t.is(first.type, 'IncomingMessage');
  t.is(first.count, 400);
  t.deepEqual(first.holder, { name: 'recentRequests', file: 'requests.mjs', line: lineOf(fixture('requests.mjs'), 'const recentRequests') });
  t.true(report.nodes > 10000 && report.heapBytes > first.bytes, JSON.stringify({ nodes: report.nodes, heap: report.heapBytes }));
});

test('a Map cache in a second module is named with that module, not the main one', async (t) => {
  const report = await analyseSnapshot(t.context.mapCache, { growthBytes: 400 * 200, cwd: FIXTURES });
  const [first] = report.held;
  t.deepEqual(first.path, ['(module) map-cache/cache.mjs', 'profiles', 'Map'], say(first));
  t.is(first.type, 'Profile');
  t.is(first.count, 400);
  t.is(first.holder.file, 'map-cache/cache.mjs');
  t.is(first.holder.line, lineOf(fixture('map-cache/cache.mjs'), 'const profiles'));
});

test('listeners added per request: the emitter variable and the event name', async (t) => {
  const report = await analyseSnapshot(t.context.listeners, { growthBytes: 300 * 300, cwd: FIXTURES });
  const [first] = report.held;
  t.deepEqual(first.path, ['(module) listeners.mjs', 'shutdown', '_events', 'drain', 'Array'], say(first));
  t.is(first.holder.name, 'shutdown._events.drain');
  t.is(first.type, 'Function');
  t.true(first.count >= 299, say(first));
  t.is(first.holder.line, lineOf(fixture('listeners.mjs'), 'const shutdown'));
});

test('listeners on an emitter another module exports: that module, its export\'s name and line, not the importer', async (t) => {
  // Which table V8 lists first varies with the Node line and the modules loaded before: two apps.
  for (const snapshot of t.context.imported) {
    const report = await analyseSnapshot(snapshot, { growthBytes: 300 * 600, cwd: FIXTURES });
    const [first] = report.held;
    t.deepEqual(first.path, ['(module) imported-emitter/bus.mjs', 'bus', '_events', 'config', 'Array'], say(first));
    t.deepEqual(first.holder, { name: 'bus._events.config', file: 'imported-emitter/bus.mjs', line: lineOf(fixture('imported-emitter/bus.mjs'), 'export const bus') });
  }
});

test('a leak inside a package: package@version in the holder', async (t) => {
  const report = await analyseSnapshot(t.context.pkg, { growthBytes: 300 * 100, cwd: t.context.app });
  const [first] = report.held;
  t.deepEqual(first.path, ['(module) node_modules/fakepkg/index.js', 'openSpans', 'Array'], say(first));
  t.is(first.type, 'Span');
  t.deepEqual(first.holder, { name: 'openSpans', file: 'node_modules/fakepkg/index.js', line: lineOf(fixture('fakepkg/index.js'), 'const openSpans'), package: 'fakepkg@1.2.3' });
});

test('a package\'s object the app declares holds it: the app\'s variable and line, and the package it is inside', async (t) => {
  const report = await analyseSnapshot(t.context.histogram, { growthBytes: 300 * 150, cwd: t.context.app });
  const [first] = report.held;
  t.deepEqual(first.path, ['(module) histogram.cjs', 'duration', 'hashMap', 'Object'], say(first));
  t.is(first.type, 'Series');
  t.deepEqual(first.holder, { name: 'duration.hashMap', file: 'histogram.cjs', line: lineOf(fixture('histogram-app.cjs'), 'const duration'), inside: 'fakepkg@1.2.3' });
  t.regex(describeHolder(first), /^duration\.hashMap \(Object of 300 Series\) declared at histogram\.cjs:\d+, inside fakepkg@1\.2\.3$/);
});

// 300 Sessions of ~1 KB leak beside 900 Translations of ~1 KB that do not.
const LEAK = 300 * 1024;
const stableSite = { fn: 'handle', file: 'stable-cache.mjs', line: lineOf(fixture('stable-cache.mjs'), 'function handle') };

test('without hints the bigger steady cache comes first: size alone cannot tell a leak', async (t) => {
  const report = await analyseSnapshot(t.context.stable, { cwd: FIXTURES });
  t.deepEqual(report.held.slice(0, 2).map((h) => h.holder.name), ['translations', 'sessions'], report.held.map(say).join('\n'));
  t.true(report.held[0].bytes > 2.5 * report.held[1].bytes, report.held.map(say).join('\n'));
});

test('given what grew, the leak is named before a steady cache three times its size', async (t) => {
  const report = await analyseSnapshot(t.context.stable, { kind: 'heap', growthBytes: LEAK, cwd: FIXTURES });
  t.is(report.held[0].holder.name, 'sessions', report.held.map(say).join('\n'));
  t.is(report.held[0].type, 'Session');
  t.true(report.held[0].share > 0.8 && report.held[0].share < 1.3, String(report.held[0].share));
});

test('a growth estimate off by two is rescued by the leak\'s allocation site', async (t) => {
  const report = await analyseSnapshot(t.context.stable, { growthBytes: 2 * LEAK, sites: [stableSite], cwd: FIXTURES });
  t.is(report.held[0].holder.name, 'sessions', report.held.map(say).join('\n'));
  const bySizeAlone = await analyseSnapshot(t.context.stable, { growthBytes: 2 * LEAK, cwd: FIXTURES });
  t.is(bySizeAlone.held[0].holder.name, 'translations', 'without the site the estimate alone misleads (so the site is what helped)');
});

test('the site matches by the constructor too: a site in Session names the sessions', async (t) => {
  const site = { fn: 'Session', file: 'stable-cache.mjs', line: lineOf(fixture('stable-cache.mjs'), 'class Session') };
  const report = await analyseSnapshot(t.context.stable, { growthBytes: 2 * LEAK, sites: [site], cwd: FIXTURES });
  t.is(report.held[0].holder.name, 'sessions', report.held.map(say).join('\n'));
});

test('the report: at most five, best first, no holder inside another, times and sizes filled in', async (t) => {
  const report = await analyseSnapshot(t.context.stable, { growthBytes: LEAK, cwd: FIXTURES });
  t.true(report.held.length > 1 && report.held.length <= 5);
  t.true(report.parseMs >= 0 && report.analysisMs >= 0);
  for (const h of report.held) {
    t.deepEqual(Object.keys(h).sort(), ['bytes', 'count', 'holder', 'path', 'share', 'type']);
    t.is(h.share, Math.round((h.bytes / LEAK) * 1000) / 1000);
  }
  t.is(new Set(report.held.map((h) => h.path.join('/'))).size, report.held.length);
});
