// A well-behaved server: nothing is kept between requests. Its memory stays flat under nodesup.
import http from 'node:http';
import { onShutdown } from 'nodesup/worker';

const port = Number(process.env.PORT ?? 3000);
const server = http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ pid: process.pid, slot: process.env.NODESUP_SLOT, url: req.url }));
});
// Loopback unless told otherwise: in a container HOST=0.0.0.0 (see the Dockerfile).
server.listen(port, process.env.HOST ?? '127.0.0.1');
onShutdown(() => console.log(`worker ${process.pid}: drained, bye`));
