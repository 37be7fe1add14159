// A heap leak hidden among churn (issue 9): users.js keeps every user it sees (LEAK_MB_PER_MIN, 3),
// while report.js allocates far more (CHURN_MB_PER_SEC, 5) and keeps nothing. A profile of what is
// allocated names report.js; only the retained growth names users.js.
//   PORT, LEAK_MB_PER_MIN (3), CHURN_MB_PER_SEC (5)
import http from 'node:http';
import { buildReport } from './report.js';

// The healthy twin (../hidden-healthy) runs this same server with its bounded users.js.
const { cacheUser } = await import(process.env.TWIN === 'healthy' ? '../hidden-healthy/users.js' : './users.js');

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
