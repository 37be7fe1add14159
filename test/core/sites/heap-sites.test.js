// Profile diff → sites, on two sampling heap profiles recorded from a tiny app (test/fixtures/profiles:
// record.js), where cacheUser in app/users.js retains and buildReport in app/report.js only churns.
import test from 'ava';
import fs from 'node:fs';
import { flattenProfile, retainedSites, addProfiles } from '../../../src/core/sites/heap-sites.js';

const rec = JSON.parse(fs.readFileSync(new URL('../../fixtures/profiles/two-profiles.json', import.meta.url), 'utf8'));
const flat = (p) => flattenProfile(p.head, { cwd: rec.cwd });

test('a recorded pair: the retaining function is named with its file and line; the churning one is not', (t) => {
  const sites = retainedSites(flat(rec.before), flat(rec.after), rec.spanMs);
  // The profiler's frames are functions: the line is where cacheUser is declared (1-based).
  t.like(sites[0], { fn: 'cacheUser', file: 'app/users.js', line: 3 });
  t.true(sites[0].share >= 0.5, `share ${sites[0].share}`);
  t.true(sites[0].bytesPerMin > 0);
  t.false(sites.some((s) => s.fn === 'buildReport' || s.file === 'app/report.js'), JSON.stringify(sites));
});

const frame = (functionName, url, lineNumber) => ({ functionName, url, lineNumber, columnNumber: 0 });
const node = (callFrame, selfSize, children = []) => ({ callFrame, selfSize, children });
const ROOT = frame('(root)', '', -1);

const FLAT = [
  ['an allocation inside node: internals goes to the app frame that called it',
    node(ROOT, 0, [node(frame('cacheUser', 'file:///srv/app/users.js', 16), 0, [node(frame('from', 'node:buffer', 10), 4096)])]),
    [{ fn: 'cacheUser', file: 'users.js', line: 17, bytes: 4096 }]],
  ['CommonJS paths (no file://) are made relative to cwd too',
    node(ROOT, 0, [node(frame('load', '/srv/app/lib/load.js', 0), 100)]),
    [{ fn: 'load', file: 'lib/load.js', line: 1, bytes: 100 }]],
  ['a path outside cwd stays absolute; anonymous functions say so',
    node(ROOT, 0, [node(frame('', '/opt/x.js', 4), 50)]),
    [{ fn: '(anonymous)', file: '/opt/x.js', line: 5, bytes: 50 }]],
  ['the same site through two stacks is summed',
    node(ROOT, 0, [node(frame('a', '/srv/app/a.js', 1), 0, [node(frame('k', '/srv/app/k.js', 2), 10)]), node(frame('b', '/srv/app/b.js', 1), 0, [node(frame('k', '/srv/app/k.js', 2), 30)])]),
    [{ fn: 'k', file: 'k.js', line: 3, bytes: 40 }]],
  ['nodesup\'s own allocations are no site, not even under the app frame that led to them',
    node(ROOT, 0, [node(frame('handler', '/srv/app/h.js', 9), 0, [node(frame('stats', '/usr/lib/nodesup/src/worker/agent.js', 1), 64)])]),
    []],
  // The case: the agent's vm.runInNewContext('gc') showed as {fn:'createContext', file:'node:vm'}.
  ['the agent\'s GC through node:vm is nodesup\'s, not a site',
    node(ROOT, 0, [node(frame('fullGc', 'file:///usr/lib/nodesup/src/worker/agent.js', 140), 0, [node(frame('runInNewContext', 'node:vm', 300), 0, [node(frame('createContext', 'node:vm', 230), 9000)])]), node(frame('cacheUser', '/srv/app/users.js', 2), 100)]),
    [{ fn: 'cacheUser', file: 'users.js', line: 3, bytes: 100 }]],
  ['an app hook the agent calls is the app\'s',
    node(ROOT, 0, [node(frame('drain', '/usr/lib/nodesup/src/worker/agent.js', 1), 0, [node(frame('onDrain', '/srv/app/h.js', 4), 32)])]),
    [{ fn: 'onDrain', file: 'h.js', line: 5, bytes: 32 }]],
  ['a library site names its package and the app frame that reached it (the one with most bytes)',
    node(ROOT, 0, [
      node(frame('handle', '/srv/app/server.js', 11), 0, [node(frame('wrap', '/srv/app/node_modules/express/lib/router.js', 5), 0, [node(frame('set', '/srv/app/node_modules/some-store/lib/memory.js', 118), 300)])]),
      node(frame('warm', '/srv/app/boot.js', 2), 0, [node(frame('set', '/srv/app/node_modules/some-store/lib/memory.js', 118), 100)]),
    ]),
    [{ fn: 'set', file: 'node_modules/some-store/lib/memory.js', line: 119, bytes: 400, package: 'some-store@2.3.1', through: 'express', via: { file: 'server.js', line: 12, fn: 'handle' } }]],
  ['a dependency\'s copy kept by the package the app called: the site is the dependency\'s, through the package called',
    node(ROOT, 0, [node(frame('cacheLookup', '/srv/app/server.js', 23), 0, [node(frame('set', '/srv/app/node_modules/node-cache/lib/node_cache.js', 200), 0, [
      node(frame('_clone', '/srv/app/node_modules/clone/clone.js', 72), 500), node(frame('_wrap', '/srv/app/node_modules/node-cache/lib/node_cache.js', 600), 20)])])]),
    [{ fn: '_clone', file: 'node_modules/clone/clone.js', line: 73, bytes: 500, package: 'clone@2.1.2', through: 'node-cache@5.1.2', via: { file: 'server.js', line: 24, fn: 'cacheLookup' } },
      { fn: '_wrap', file: 'node_modules/node-cache/lib/node_cache.js', line: 601, bytes: 20, package: 'node-cache@5.1.2', via: { file: 'server.js', line: 24, fn: 'cacheLookup' } }]],
  ['a scoped package; no app frame above: no via',
    node(ROOT, 0, [node(frame('tick', 'file:///srv/app/node_modules/@acme/cache/index.js', 0), 8)]),
    [{ fn: 'tick', file: 'node_modules/@acme/cache/index.js', line: 1, bytes: 8, package: '@acme/cache' }]],
  ['only internals: the deepest named frame', node(ROOT, 0, [node(frame('parse', 'node:internal/json', 3), 8)]), [{ fn: 'parse', file: 'node:internal/json', line: 4, bytes: 8 }]],
];
for (const [title, head, want] of FLAT) {
  test(`flattenProfile: ${title}`, (t) => {
    const pkg = (dir) => ({ '/srv/app/node_modules/some-store': '2.3.1', '/srv/app/node_modules/clone': '2.1.2', '/srv/app/node_modules/node-cache': '5.1.2' })[dir] ?? null;
    t.deepEqual(flattenProfile(head, { cwd: '/srv/app', ignore: (u) => u.includes('/nodesup/src/'), pkg }).sites, want);
  });
}

const site = (fn, bytes) => ({ fn, file: `${fn}.js`, line: 1, bytes });
const DIFF = [
  ['growth split 3:1, per minute over 60 s', [site('a', 100), site('b', 100)], [site('a', 400), site('b', 200)], 60_000,
    [{ fn: 'a', file: 'a.js', line: 1, bytesPerMin: 300, share: 0.75 }, { fn: 'b', file: 'b.js', line: 1, bytesPerMin: 100, share: 0.25 }]],
  ['a site that shrank or held is not named', [site('a', 500), site('b', 100)], [site('a', 100), site('b', 100)], 60_000, []],
  ['a new site counts from zero', [], [site('n', 1200)], 30_000, [{ fn: 'n', file: 'n.js', line: 1, bytesPerMin: 2400, share: 1 }]],
  ['churn caught mid-flight (under a tenth of the growth) is not named', [site('c', 0)], [site('leak', 950), site('c', 50)], 60_000,
    [{ fn: 'leak', file: 'leak.js', line: 1, bytesPerMin: 950, share: 0.95 }]],
  ['no span, no sites', [site('a', 1)], [site('a', 9)], 0, []],
  ['a library site keeps its package and via', [], [{ ...site('set', 60), package: 'p@1.0.0', via: { file: 's.js', line: 2, fn: 'h' } }], 60_000,
    [{ fn: 'set', file: 'set.js', line: 1, package: 'p@1.0.0', via: { file: 's.js', line: 2, fn: 'h' }, bytesPerMin: 60, share: 1 }]],
];
for (const [title, before, after, spanMs, want] of DIFF) {
  test(`retainedSites: ${title}`, (t) => {
    t.deepEqual(retainedSites({ total: 0, sites: before }, { total: 0, sites: after }, spanMs), want);
  });
}

// The in-process profiler's segments, added up: the same site summed, new ones kept, largest first.
const ADD = [
  ['no earlier sum: the segment itself', null, { total: 30, sites: [site('a', 30)] }, { total: 30, sites: [site('a', 30)] }],
  ['the same site is summed, a new one joins, order by bytes', { total: 40, sites: [site('a', 30), site('b', 10)] },
    { total: 45, sites: [site('b', 40), site('c', 5)] }, { total: 85, sites: [site('b', 50), site('a', 30), site('c', 5)] }],
  ['an empty segment changes nothing', { total: 9, sites: [site('a', 9)] }, { total: 0, sites: [] }, { total: 9, sites: [site('a', 9)] }],
];
for (const [title, a, b, want] of ADD) {
  test(`addProfiles: ${title}`, (t) => {
    t.deepEqual(addProfiles(a, b), want);
  });
}

test('addProfiles keeps the largest sites up to max, and leaves its inputs alone', (t) => {
  const a = { total: 3, sites: [site('a', 3)] };
  const b = { total: 7, sites: [site('a', 1), site('b', 2), site('c', 4)] };
  t.deepEqual(addProfiles(a, b, { max: 2 }).sites, [site('a', 4), site('c', 4)]);
  t.deepEqual(a.sites, [site('a', 3)]);
});

test('flattenProfile counts nodesup\'s own bytes apart, out of the total', (t) => {
  const head = node(ROOT, 0, [node(frame('fullGc', '/usr/lib/nodesup/src/worker/agent.js', 1), 0, [node(frame('createContext', 'node:vm', 1), 700)]), node(frame('k', '/srv/app/k.js', 1), 300)]);
  t.like(flattenProfile(head, { cwd: '/srv/app', ignore: (u) => u.includes('/nodesup/src/') }), { total: 300, ours: 700 });
});

// Recorded (test/fixtures/profiles/record-library.js): a leak inside some-store's set, reached from
// the app's saveSession, while a stand-in for the agent forced each point's GC through a fresh
// vm context, which V8 files under node:vm's createContext below the agent's frame.
const lib = JSON.parse(fs.readFileSync(new URL('../../fixtures/profiles/library-profiles.json', import.meta.url), 'utf8'));
const libOpts = { cwd: lib.cwd, ignore: (u) => u.includes('/opt/nodesup/src/'), pkg: (d) => (d === '/srv/app/node_modules/some-store' ? '2.3.1' : null) };

test('recorded library leak: the package, its version and the app line that reached it; the agent\'s vm GC is no site', (t) => {
  const before = flattenProfile(lib.before.head, libOpts);
  const after = flattenProfile(lib.after.head, libOpts);
  const sites = retainedSites(before, after, lib.spanMs);
  t.like(sites[0], { fn: 'set', file: 'node_modules/some-store/lib/memory.js', package: 'some-store@2.3.1', via: { file: 'server.js', fn: 'saveSession' } });
  t.false([...before.sites, ...after.sites].some((s) => s.file.includes('nodesup') || s.file.startsWith('node:vm')), JSON.stringify(after.sites));
  t.true(after.ours > 0, 'the contexts nodesup made are counted apart');
  // Told nothing of what is nodesup's, the same profile does name the stand-in agent: the rule is what keeps it out.
  t.true(flattenProfile(lib.after.head, { cwd: lib.cwd }).sites.some((s) => s.file.startsWith('/opt/nodesup/')));
});
