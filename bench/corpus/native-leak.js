// A native leak: zlib deflate streams that are opened, fed and never ended. Each holds ~290 KiB of
// zlib state malloc'd by the addon, outside the V8 heap and outside `external` (only its 16 KiB
// output buffer is external), so it shows as native = RSS − heapTotal − external.
//   PORT, LEAK_MB_PER_MIN (6), CHURN_KB_PER_SEC (512)
import http from 'node:http';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';

const PER_STREAM = 290 * 1024; // measured: RSS − heapTotal − external per fed stream
const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 6) * 1024 * 1024) / 60_000; // by the clock: a starved timer still leaks on time
const churn = Math.round((Number(process.env.CHURN_KB_PER_SEC ?? 512) * 1024) / 10 / 64);
const input = randomBytes(64 * 1024); // incompressible: every zlib buffer gets written, so paged in

const open = [];
let owed = 0;
let last = Date.now();
setInterval(() => {
  owed += perMs * (Date.now() - last);
  last = Date.now();
  for (; owed >= PER_STREAM; owed -= PER_STREAM) {
    const z = zlib.createDeflate();
    z.resume(); // output is read and dropped; the stream itself is what leaks
    z.write(input);
    z.flush();
    open.push(z);
  }
}, 200);
setInterval(() => {
  globalThis.sink = Array.from({ length: churn }, (_, i) => ({ i, s: `row ${i}` }));
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} open deflate streams ${open.length}\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
