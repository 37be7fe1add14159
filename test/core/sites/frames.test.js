// Frames → what they are: library (package, its directory), the site and its `via`, nodesup's own.
import test from 'ava';
import { libraryOf, classifyStack, fileOf } from '../../../src/core/sites/frames.js';

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
    { ours: false, site: { fn: 'set', file: 'node_modules/st/m.js', line: 9 }, via: { file: 'server.js', line: 12, fn: 'route' }, library: { name: 'st', dir: '/srv/app/node_modules/st' }, through: { name: 'fw', dir: '/srv/app/node_modules/fw' } }],
  ['library site within the package the app called: no through', [f('_clone', '/srv/app/node_modules/nc/node_modules/clone/c.js', 73), f('clone', '/srv/app/node_modules/nc/node_modules/clone/c.js', 40), f('set', '/srv/app/node_modules/nc/index.js', 5), f('set', '/srv/app/node_modules/nc/index.js', 9), f('cacheLookup', '/srv/app/server.js', 24)],
    { ours: false, site: { fn: '_clone', file: 'node_modules/nc/node_modules/clone/c.js', line: 73 }, via: { file: 'server.js', line: 24, fn: 'cacheLookup' }, library: { name: 'clone', dir: '/srv/app/node_modules/nc/node_modules/clone' }, through: { name: 'nc', dir: '/srv/app/node_modules/nc' } }],
  ['library site, the app called that package itself: no through', [f('set', '/srv/app/node_modules/st/m.js', 9), f('save', '/srv/app/node_modules/st/i.js', 3), f('route', '/srv/app/server.js', 12)],
    { ours: false, site: { fn: 'set', file: 'node_modules/st/m.js', line: 9 }, via: { file: 'server.js', line: 12, fn: 'route' }, library: { name: 'st', dir: '/srv/app/node_modules/st' } }],
  ['the app\'s callback between two packages: the package nearest the site is the one called', [f('set', '/srv/app/node_modules/st/m.js', 9), f('cb', '/srv/app/server.js', 30), f('next', '/srv/app/node_modules/fw/r.js', 1), f('route', '/srv/app/server.js', 12)],
    { ours: false, site: { fn: 'set', file: 'node_modules/st/m.js', line: 9 }, via: { file: 'server.js', line: 30, fn: 'cb' }, library: { name: 'st', dir: '/srv/app/node_modules/st' } }],
  ['nodesup innermost: ours', [f('createContext', 'node:vm', 1), f('fullGc', 'file:///opt/nodesup/src/worker/agent.js', 4), f('h', '/srv/app/h.js', 1)], { ours: true }],
  ['only internals: null', [f('x', 'node:internal/a', 1)], null],
];
for (const [title, frames, want] of STACKS) {
  test(`classifyStack: ${title}`, (t) => t.deepEqual(classifyStack(frames, { ours, cwd: '/srv/app', zeroBased: false }), want));
}

test('fileOf: a file:// url decoded, relative to cwd', (t) => {
  t.is(fileOf('file:///srv/app/a%20b.js', '/srv/app'), 'a b.js');
});
