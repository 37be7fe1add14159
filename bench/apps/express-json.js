// The overhead bench's second app: an express JSON API that does real work per request, identical
// under both primaries. GET /users?limit=&min= filters, sorts and pages an in-memory table of 500
// users, a middleware stamps a request id and a timing header, and res.json() serializes the page.
// express comes from bench/corpus/packages (its own lockfile; `npm ci` there installs it).
//   PORT=3000 node bench/apps/express-json.js   then   GET /users?limit=50&min=20
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(fileURLToPath(new URL('../corpus/packages/package.json', import.meta.url)));
let express;
try {
  express = require('express');
} catch (err) {
  process.stderr.write(`express-json: express is not installed in bench/corpus/packages: run \`npm ci\` there (${err.code})\n`);
  process.exit(2);
}

const CITIES = ['Lyon', 'Oslo', 'Porto', 'Kyoto', 'Quito', 'Accra', 'Perth', 'Turin'];
const users = Array.from({ length: 500 }, (_, i) => ({
  id: i, name: `user ${i}`, email: `u${i}@example.com`, city: CITIES[i % CITIES.length],
  score: Math.round(((i * 7919) % 1000) / 10), tags: ['a', 'b', String(i % 7)], createdAt: new Date(1.7e12 + i * 36e5).toISOString(),
}));

let seq = 0;
const app = express();
app.disable('x-powered-by');
app.use((req, res, next) => {
  const t0 = process.hrtime.bigint();
  res.setHeader('x-request-id', `${process.pid}-${++seq}`);
  const end = res.end;
  res.end = function (...args) {
    res.setHeader('server-timing', `app;dur=${Number(process.hrtime.bigint() - t0) / 1e6}`);
    return end.apply(this, args);
  };
  next();
});
app.get('/users', (req, res) => {
  const limit = Math.min(200, Number(req.query.limit ?? 50));
  const min = Number(req.query.min ?? 0);
  const page = users
    .filter((u) => u.score >= min)
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, limit)
    .map((u) => ({ ...u, display: `${u.name} <${u.email}> (${u.city})` }));
  const byCity = {};
  for (const u of page) byCity[u.city] = (byCity[u.city] ?? 0) + 1;
  res.json({ count: page.length, byCity, users: page });
});
app.listen(Number(process.env.PORT), '127.0.0.1');
