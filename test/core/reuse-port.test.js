// Whether balance: 'reuse-port' keeps its promises on a host, and which listeners are a stranger's.
import test from 'ava';
import { reusePortBlocker, sharesAddress, strangersOn } from '../../src/core/reuse-port.js';

test('the Node line and tcp_migrate_req decide', (t) => {
  const rows = [
    [{ node: '20.20.2', migrateReq: 1 }, 'node'],
    [{ node: '22.11.0', migrateReq: 1 }, 'node'],
    [{ node: '22.12.0', migrateReq: 1 }, null],
    [{ node: '24.21.0', migrateReq: 1 }, null],
    [{ node: '26.10.0', migrateReq: 0 }, 'tcp_migrate_req'],
    [{ node: '26.10.0', migrateReq: null }, 'tcp_migrate_req'],
    [{ node: '20.20.2', migrateReq: 0 }, 'node'],
  ];
  for (const [host, reason] of rows) t.is(reusePortBlocker(host)?.reason ?? null, reason, JSON.stringify(host));
  t.regex(reusePortBlocker({ node: '26.10.0', migrateReq: 0 }).detail, /tcp_migrate_req is 0/);
  t.regex(reusePortBlocker({ node: '26.10.0', migrateReq: null }).detail, /cannot be read/);
});

test('addresses that can take the same connection', (t) => {
  t.true(sharesAddress('127.0.0.1', '127.0.0.1'));
  t.true(sharesAddress('0.0.0.0', '127.0.0.1'));
  t.true(sharesAddress('::', '127.0.0.1'), 'a dual-stack wildcard takes IPv4 too');
  t.true(sharesAddress('10.0.0.5', ''), 'the app listening on every address');
  t.false(sharesAddress('10.0.0.5', '127.0.0.1'));
});

test('a stranger is a listener on the app\'s port and address that no process of ours holds', (t) => {
  const listeners = [
    { address: '127.0.0.1', port: 3000, inode: 11 },
    { address: '127.0.0.1', port: 3000, inode: 12 },
    { address: '0.0.0.0', port: 3000, inode: 13 },
    { address: '10.0.0.5', port: 3000, inode: 14 },
    { address: '127.0.0.1', port: 3001, inode: 15 },
  ];
  t.deepEqual(strangersOn(listeners, new Set([11, 12]), { port: 3000, host: '127.0.0.1' }).map((l) => l.inode), [13]);
  t.deepEqual(strangersOn(listeners, new Set([11, 12, 13]), { port: 3000, host: '127.0.0.1' }), []);
  t.deepEqual(strangersOn(listeners, new Set([11, 12, 13]), { port: 3000 }).map((l) => l.inode), [14], 'every address meets every listener on the port');
});
