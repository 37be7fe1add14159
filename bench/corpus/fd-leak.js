// A socket/fd leak (docs/incidents.md, incident 5): FD_PER_SEC connections a second to a side server of its own, each
// kept open at both ends with TCP keep-alive, never closed. fds and handles grow; memory only a
// little (a few KiB of heap per socket).
//   PORT, FD_PER_SEC (8), FD_MAX (4000): connections, two fds each
import http from 'node:http';
import net from 'node:net';

const perSec = Number(process.env.FD_PER_SEC ?? 8);
const max = Number(process.env.FD_MAX ?? 4000);
const held = [];
let owed = 0;
let last = Date.now();

const main = http.createServer((req, res) => res.end(`ok ${process.pid} sockets ${held.length}\n`));
main.listen(Number(process.env.PORT), '127.0.0.1', () => {
  // exclusive: this side server is the worker's own, not shared through the cluster primary
  const side = net.createServer((s) => held.push(s));
  side.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
    const { port } = side.address();
    setInterval(() => {
      owed += (perSec * (Date.now() - last)) / 1000;
      last = Date.now();
      for (; owed >= 1 && held.length < 2 * max; owed--) {
        const c = net.connect(port, '127.0.0.1');
        c.setKeepAlive(true, 30_000);
        c.on('error', () => {});
        held.push(c);
      }
    }, 200);
  });
});
