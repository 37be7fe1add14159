// A Buffer leak among Buffer churn: holdUpload keeps every upload chunk (LEAK_MB_PER_MIN), while
// parseChunk allocates CHURN_X times as many Buffer bytes and drops each at once. Heap stays flat;
// external memory grows at the leak's rate, and on Node 24+ it also saws up with the churn.
//   PORT, LEAK_MB_PER_MIN (2; 0: churn only, the healthy twin), CHUNK_KB (32), CHURN_X (4)
import http from 'node:http';

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 2) * 1024 * 1024) / 60_000;
const chunk = Number(process.env.CHUNK_KB ?? 32) * 1024;
const churnX = Number(process.env.CHURN_X ?? 4);
const uploads = [];

function holdUpload(i) {
  uploads.push(Buffer.alloc(chunk, i & 0xff));
}

function parseChunk(i) {
  const b = Buffer.allocUnsafe(chunk);
  b.fill(i & 0xff);
  return b.readUInt32LE(0);
}

let owed = 0;
let churnOwed = 0;
let last = Date.now();
let i = 0;
setInterval(() => {
  const dt = Date.now() - last; // by the clock: a starved timer still leaks on time
  last = Date.now();
  owed += perMs * dt;
  churnOwed += churnX * Math.max(perMs, (2 * 1024 * 1024) / 60_000) * dt; // the twin churns as the 2 MiB/min leak's would
  for (; owed >= chunk; owed -= chunk) holdUpload(i++);
  for (; churnOwed >= chunk; churnOwed -= chunk) parseChunk(i++);
}, 100);

http.createServer((req, res) => res.end(`ok ${process.pid} uploads ${uploads.length}\n`)).listen(Number(process.env.PORT), '127.0.0.1');
