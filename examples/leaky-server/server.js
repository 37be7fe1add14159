// A server that leaks: every request keeps 32 KiB and a timer keeps 2 MiB a second, never freed,
// as a cache without eviction would. Run it under nodesup and watch it get recycled:
//   npx nodesup start examples/leaky-server/server.js
//   curl http://127.0.0.1:3000/
import http from 'node:http';

const cache = [];
const port = Number(process.env.PORT ?? 3000);

setInterval(() => cache.push(new Array(256 * 1024).fill(Math.random())), 1000);

http
  .createServer((req, res) => {
    cache.push(`${req.url} ${Date.now()} `.padEnd(32 * 1024, '.'));
    res.setHeader('content-type', 'text/plain');
    res.end(`hello from pid ${process.pid}; cache holds ${cache.length} entries\n`);
  })
  .listen(port, '127.0.0.1', () => {
    if (process.env.NODESUP_SLOT === '0') console.log(`leaky-server listening on http://127.0.0.1:${port}/`);
  });
