// A site is said once, from its fields: the log, inspect and the status pane read alike.
import test from 'ava';
import { describeSite } from '../../src/report/site-words.js';

const SITES = [
  ['an app function: its name and line', { fn: 'cachePage', file: 'lib/pages.js', line: 9 }, 'cachePage (lib/pages.js:9)'],
  ['a library site: its package, and the app line that reached it', { fn: 'MemoryStore.set', file: 'node_modules/some-store/lib/memory.js', line: 119, package: 'some-store@2.3.1', via: { file: 'server.js', line: 12 } },
    'some-store@2.3.1 MemoryStore.set, reached from server.js:12'],
  ['a dependency\'s code: the package the app called, too', { fn: '_clone', file: 'node_modules/clone/clone.js', line: 73, package: 'clone@2.1.2', through: 'node-cache@5.1.2', via: { file: 'server.js', line: 24 } },
    'clone@2.1.2 _clone, through node-cache@5.1.2, reached from server.js:24'],
  ['a library site with no app frame found', { fn: 'set', file: 'node_modules/x/i.js', line: 3, package: 'x' }, 'x set'],
  ['a resource held open: what holds the memory first', { fn: '(anonymous)', file: 'native-leak.js', line: 21, resource: 'zlib Deflate' }, 'zlib Deflate streams opened at (anonymous) (native-leak.js:21)'],
  ['none', null, ''],
];
for (const [title, site, want] of SITES) test(`describeSite: ${title}`, (t) => t.is(describeSite(site), want));
