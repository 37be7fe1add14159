// The healthy twin of child-leak.js: every CHILD_EVERY_S a helper process runs a job of JOB_S and is
// ended when it is done, as a converter or a headless browser should be. The tree holds one or two
// helpers at a time, never more.
//   PORT, CHILD_EVERY_S (10), CHILD_MB (8), JOB_S (5)
import http from 'node:http';
import { spawn } from 'node:child_process';

const everyS = Number(process.env.CHILD_EVERY_S ?? 10);
const mb = Number(process.env.CHILD_MB ?? 8);
const jobMs = Number(process.env.JOB_S ?? 5) * 1000;
const helper = `const keep = Buffer.alloc(${mb} * 1048576, 1);
setInterval(() => { try { process.kill(${process.pid}, 0); } catch { process.exit(0); } }, 1000);`;

let done = 0;
setInterval(() => {
  const child = spawn(process.execPath, ['-e', helper], { stdio: 'ignore' });
  child.on('error', () => {});
  child.on('exit', () => done++);
  setTimeout(() => child.kill(), jobMs);
}, everyS * 1000);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} jobs done ${done}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
