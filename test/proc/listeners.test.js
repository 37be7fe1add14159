// TCP listeners read from /proc, against real sockets this process opens.
import net from 'node:net';
import test from 'ava';
import { tcpListeners, socketInodesOf, holderOf, readMigrateReq } from '../../src/proc/listeners.js';

const listenOn = (host) => new Promise((resolve, reject) => {
  const server = net.createServer();
  server.once('error', reject);
  server.listen({ port: 0, host }, () => resolve(server));
});

for (const host of ['127.0.0.1', '::1', '::']) {
  test(`a listener on ${host} is found with its address, port and inode, and this process holds it`, async (t) => {
    let server;
    try {
      server = await listenOn(host);
    } catch (err) {
      // A host without IPv6 has no such listener to find.
      if (host.includes(':') && err.code === 'EADDRNOTAVAIL') return t.is(err.code, 'EADDRNOTAVAIL');
      throw err;
    }
    t.teardown(() => server.close());
    const { port } = server.address();
    const found = tcpListeners().filter((l) => l.port === port);
    t.is(found.length, 1);
    t.is(found[0].address, host);
    t.true(socketInodesOf(process.pid).has(found[0].inode));
    t.is(holderOf(found[0].inode), process.pid);
  });
}

test('tcp_migrate_req reads as a number where the kernel has it', (t) => {
  const v = readMigrateReq();
  t.true(v === null || v === 0 || v === 1, String(v));
});
