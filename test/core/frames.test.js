// Frames → what they are: library (package, its directory), the site and its `via`, nodesup's own.
import test from 'ava';
import { libraryOf, classifyStack, describeSite, fileOf } from '../../src/core/frames.js';

const LIB = [
  ['/srv/app/node_modules/some-store/lib/memory.js', { name: 'some-store', dir: '/srv/app/node_modules/some-store' }],
  ['file:///srv/app/node_modules/@acme/cache/index.js', { name: '@acme/cache', dir: '/srv/app/node_modules/@acme/cache' }],
  ['/srv/app/node_modules/a/node_modules/b/x.js', { name: 'b', dir: '/srv/app/node_modules/a/node_modules/b' }],
  ['node_modules/x/i.js', { name: 'x', dir: 'node_modules/x' }],
  ['/srv/app/my_node_modules/x/i.js', null],
  ['/srv/app/node_modules/x', null],
  ['/srv/app/server.js', null],
  ['node:vm', null],
];
for (const [file, want] of LIB) test(`libraryOf ${file}`, (t) => t.deepEqual(libraryOf(file), want));

const f = (functionName, url, lineNumber) => ({ functionName, url, lineNumber });
const ours = (u) => u.includes('/nodesup/src/');
const STACKS = [
  ['app frame under internals', [f('from', 'node:buffer', 5), f('hold', '/srv/app/up.js', 20), f('main', '/srv/app/server.js', 3)],
    { ours: false, site: { fn: 'hold', file: 'up.js', line: 20 }, via: null, library: null }],
  ['library site, via the app frame past another library', [f('set', '/srv/app/node_modules/st/m.js', 9), f('next', '/srv/app/node_modules/fw/r.js', 1), f('route', '/srv/app/server.js', 12)],
    { ours: false, site: { fn: 'set', file: 'node_modules/st/m.js', line: 9 }, via: { file: 'server.js', line: 12, fn: 'route' }, library: { name: 'st', dir: '/srv/app/node_modules/st' } }],
  ['nodesup innermost: ours', [f('createContext', 'node:vm', 1), f('fullGc', 'file:///opt/nodesup/src/worker/agent.js', 4), f('h', '/srv/app/h.js', 1)], { ours: true }],
  ['only internals: null', [f('x', 'node:internal/a', 1)], null],
];
for (const [title, frames, want] of STACKS) {
  test(`classifyStack: ${title}`, (t) => t.deepEqual(classifyStack(frames, { ours, cwd: '/srv/app', zeroBased: false }), want));
}

test('describeSite says the package and the app line in words', (t) => {
  t.is(describeSite({ fn: 'MemoryStore.set', file: 'node_modules/some-store/lib/memory.js', line: 119, package: 'some-store@2.3.1', via: { file: 'server.js', line: 12 } }),
    'some-store@2.3.1 MemoryStore.set, reached from server.js:12');
  t.is(describeSite({ fn: 'cachePage', file: 'lib/pages.js', line: 9 }), 'cachePage (lib/pages.js:9)');
  t.is(fileOf('file:///srv/app/a%20b.js', '/srv/app'), 'a b.js');
});
