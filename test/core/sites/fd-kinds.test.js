// fds by what they are, on /proc text recorded from a process holding 12 idle keep-alive sockets
// (an http.Agent per request) to its own IPv4 server and 3 to its own ::1 one, a file and pipes
// (test/fixtures/proc/record-fds.js), and on tables.
import test from 'ava';
import fs from 'node:fs';
import { countFdKinds, parseTcp, parseUnix, decodeAddress, growingFdKinds } from '../../../src/core/sites/fd-kinds.js';

const rec = JSON.parse(fs.readFileSync(new URL('../../fixtures/proc/fds.json', import.meta.url), 'utf8'));

test('recorded: keep-alive sockets are named by the service they reach, with their state; files by path; pipes', (t) => {
  const sockets = parseTcp(rec.tcp);
  parseTcp(rec.tcp6, sockets);
  parseUnix(rec.unix, sockets);
  const kinds = countFdKinds(rec.links, sockets);
  const { v4, v6 } = rec.ports;
  // Both ends live in this process: the client sockets by their remote, the accepted ones by their local end.
  t.is(kinds[`TCP to 127.0.0.1:${v4}, ESTABLISHED`], 12, JSON.stringify(kinds));
  t.is(kinds[`TCP on 127.0.0.1:${v4}, ESTABLISHED`], 12);
  t.is(kinds[`TCP listening on 127.0.0.1:${v4}`], 1);
  t.is(kinds[`TCP to [::1]:${v6}, ESTABLISHED`], 3);
  t.is(kinds[`TCP listening on [::1]:${v6}`], 1);
  t.is(kinds['file /srv/app/record-fds.js'], 1);
  t.true(kinds.pipe >= 2);
  t.false(Object.keys(kinds).some((k) => k.startsWith('socket')), 'every socket found in the tables');
});

const ADDR = [
  ['0100007F:0FA0', '127.0.0.1:4000'],
  ['00000000:0050', '0.0.0.0:80'],
  ['00000000000000000000000001000000:AE69', '[::1]:44649'],
  ['0000000000000000FFFF00000100007F:1F90', '127.0.0.1:8080'],
  ['00000000000000000000000000000000:0000', '[::]:0'],
  ['B80D0120000000000000000001000000:01BB', '[2001:db8::1]:443'],
];
for (const [hex, want] of ADDR) test(`decodeAddress ${hex}`, (t) => t.is(decodeAddress(hex), want));

test('unix sockets by path, or by state when unnamed; unknown sockets and anon inodes', (t) => {
  const unix = parseUnix('Num       RefCount Protocol Flags    Type St Inode Path\n'
    + '0000000000000000: 00000002 00000000 00010000 0001 01 501 /run/app.sock\n'
    + '0000000000000000: 00000003 00000000 00000000 0001 03 502\n');
  t.deepEqual(countFdKinds(['socket:[501]', 'socket:[502]', 'socket:[999]', 'anon_inode:[eventpoll]', '/var/log/a.log (deleted)'], unix), {
    'unix /run/app.sock': 1, 'unix, CONNECTED': 1, 'socket (other)': 1, eventpoll: 1, 'file /var/log/a.log': 1,
  });
});

const GROW = [
  ['12 a second to one service, the file flat', { t: 0, kinds: { 'TCP to 10.0.0.5:4000, ESTABLISHED': 3, 'file /x': 1 } },
    { t: 10_000, kinds: { 'TCP to 10.0.0.5:4000, ESTABLISHED': 123, 'file /x': 1 } }, [{ what: 'TCP to 10.0.0.5:4000, ESTABLISHED', count: 123, perSec: 12 }]],
  ['a new kind counts from zero; fastest first', { t: 0, kinds: {} }, { t: 20_000, kinds: { pipe: 20, 'file /tmp/a': 60 } },
    [{ what: 'file /tmp/a', count: 60, perSec: 3 }, { what: 'pipe', count: 20, perSec: 1 }]],
  ['a rise under ten is not named', { t: 0, kinds: { pipe: 2 } }, { t: 10_000, kinds: { pipe: 11 } }, []],
  ['no span', { t: 5, kinds: {} }, { t: 5, kinds: { pipe: 50 } }, []],
];
for (const [title, a, b, want] of GROW) test(`growingFdKinds: ${title}`, (t) => t.deepEqual(growingFdKinds(a, b), want));

test('growingFdKinds: on a tie, the connections the worker opened come first', (t) => {
  const kinds = growingFdKinds({ t: 0, kinds: {} }, { t: 10_000, kinds: { 'TCP on 127.0.0.1:4000, ESTABLISHED': 60, 'TCP to 127.0.0.1:4000, ESTABLISHED': 60 } });
  t.is(kinds[0].what, 'TCP to 127.0.0.1:4000, ESTABLISHED');
});
