// agent-per-request.js with its upstream where it usually is: another process. Every call makes a
// new keep-alive http.Agent, dropped with its idle socket still open; the upstream (a child process
// started here, which keeps idle connections forever) holds the other end, so this worker's table
// has only its own end of each: one fd a call, "TCP to" one peer. Slower than its twin, as a
// real app's leak is: the fds pass the count where nodesup reads what they are later.
//   PORT, CALLS_PER_SEC (3), FD_MAX (3000)
import http from 'node:http';
import { spawn } from 'node:child_process';
import { once } from 'node:events';

const perSec = Number(process.env.CALLS_PER_SEC ?? 3);
const max = Number(process.env.FD_MAX ?? 3000);

const upstream = spawn(process.execPath, ['-e', `
  const http = require('node:http');
  const s = http.createServer((req, res) => res.end('{"price":42}'));
  s.keepAliveTimeout = 0;
  s.listen(0, '127.0.0.1', () => process.stdout.write(s.address().port + '\\n'));
  setInterval(() => { try { process.kill(${process.pid}, 0); } catch { process.exit(0); } }, 1000);
`], { stdio: ['ignore', 'pipe', 'ignore'] });
const [line] = await once(upstream.stdout, 'data');
const upstreamPort = Number(String(line).trim());

let calls = 0;
function fetchPrice() {
  return new Promise((resolve) => {
    // The bug: a new Agent per call, so no socket is ever reused, and none is closed.
    const agent = new http.Agent({ keepAlive: true });
    http.get({ host: '127.0.0.1', port: upstreamPort, path: '/price', agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', resolve);
    calls++;
  });
}

let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += (perSec * (Date.now() - last)) / 1000;
  last = Date.now();
  for (; owed >= 1 && calls < max; owed--) fetchPrice();
}, 200);

http.createServer(async (req, res) => {
  await fetchPrice();
  res.end(`ok ${process.pid} calls ${calls}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
