// Incident 5 (docs/incidents.md): 5 times a second a keep-alive connection to its own server that is never closed, and
// an interval that is never cleared; the count passes 256 and 300 within a minute. Capped at 2000
// of each so a runaway run cannot exhaust fds.
//   PORT, PER_SEC (5)
import http from 'node:http';
import net from 'node:net';

const HEALTHY = process.env.TWIN === 'healthy';
const perSec = Number(process.env.PER_SEC ?? 5);
let open = 0;
const server = http.createServer((req, res) => res.end(`ok ${process.pid} open ${open}\n`));
server.keepAliveTimeout = 0; // the server keeps them too: the leak is the client's
server.listen(Number(process.env.PORT), '127.0.0.1', () => {
  // Read once: once a drain has closed the server, address() is null, and reading it in the
  // interval killed the draining worker with its connections (a failed request in the bench).
  const { port } = server.address();
  setInterval(() => {
    if (open >= 2000) return;
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    const heartbeat = setInterval(() => {}, 30_000);
    open++;
    // The twin closes both after 2 s: a steady ~10 open.
    if (HEALTHY) setTimeout(() => { socket.destroy(); clearInterval(heartbeat); open--; }, 2000);
  }, 1000 / perSec);
});
