// A child-process leak: every CHILD_EVERY_S a helper process is spawned and never reaped, each
// holding CHILD_MB on top of a node process's own ~40 MiB. Memory grows in the tree, not the worker.
// A helper exits by itself once this worker is gone, so a crashed test leaves nothing behind.
//   PORT, CHILD_EVERY_S (10), CHILD_MB (8)
import http from 'node:http';
import { spawn } from 'node:child_process';

const everyS = Number(process.env.CHILD_EVERY_S ?? 10);
const mb = Number(process.env.CHILD_MB ?? 8);
const helper = `const keep = Buffer.alloc(${mb} * 1048576, 1);
setInterval(() => { try { process.kill(${process.pid}, 0); } catch { process.exit(0); } }, 1000);`;

const children = [];
setInterval(() => {
  const child = spawn(process.execPath, ['-e', helper], { stdio: 'ignore' });
  child.on('error', () => {});
  children.push(child);
}, everyS * 1000);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} helpers ${children.length}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
