// The healthy twin of hidden-leak: the same churn, and users.js keeps only the last 1000 users
// (a bounded cache), while report.js allocates far more (CHURN_MB_PER_SEC, 5) and keeps nothing.
// Nothing grows: no leak may be named.
//   PORT, LEAK_MB_PER_MIN (3: the rate users arrive at), CHURN_MB_PER_SEC (5)
import http from 'node:http';
import { cacheUser } from './users.js';
import { buildReport } from './report.js';

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 3) * 1024 * 1024) / 60_000;
const rows = Math.round((Number(process.env.CHURN_MB_PER_SEC ?? 5) * 1024 * 1024) / 10 / 100); // ~100 B a row
let owed = 0;
let last = Date.now();
let id = 0;
setInterval(() => {
  owed += perMs * (Date.now() - last); // by the clock: a starved timer still leaks on time
  last = Date.now();
  for (; owed >= 1024; owed -= 1024) cacheUser(id++);
  buildReport(rows);
}, 100);

http.createServer((req, res) => res.end(`ok ${process.pid} users ${id}\n`)).listen(Number(process.env.PORT), '127.0.0.1');
