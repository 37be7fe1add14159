// Healthy GC sawtooth: heap held grows from SAW_LOW_MB to SAW_HIGH_MB over SAW_PERIOD_S, then
// everything above the low mark is dropped and collected. Bursty, but its baseline is flat.
//   PORT, SAW_LOW_MB (20), SAW_HIGH_MB (80), SAW_PERIOD_S (4)
import http from 'node:http';

const MiB = 1024 * 1024;
const low = Number(process.env.SAW_LOW_MB ?? 20);
const high = Number(process.env.SAW_HIGH_MB ?? 80);
const periodS = Number(process.env.SAW_PERIOD_S ?? 4);
const chunk = (mb) => new Array(Math.round((mb * MiB) / 8)).fill(1.5); // doubles: 8 bytes each

const base = Array.from({ length: low }, () => chunk(1));
let held = [];
let heldMb = 0;
const stepMb = (high - low) / (periodS * 10);
setInterval(() => {
  if (heldMb + stepMb > high - low) {
    held = [];
    heldMb = 0;
  }
  held.push(chunk(stepMb));
  heldMb += stepMb;
}, 100);

http.createServer((req, res) => {
  res.end(`ok ${process.pid} base ${base.length} MiB, held ${heldMb.toFixed(0)} MiB\n`);
}).listen(Number(process.env.PORT), '127.0.0.1');
