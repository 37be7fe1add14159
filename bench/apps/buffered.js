// The buffer-sampler-cost bench's app: an HTTP server whose every request is Buffer work (a body
// built from 16 Buffer chunks of 2 KiB, concatenated, plus Buffer.from of a JSON string), keeping
// 1 MiB of Buffers a minute, with the agent's Buffer sampler started at boot the way an external
// suspicion starts it. GET /mem, memoryUsage(); GET /table times one read of the sampler's table.
//   PORT, MODE: off | wrapped | sampling
import http from 'node:http';
import { bufferSampler } from '../../src/worker/sites/buffer-sampler.js';

const mode = process.env.MODE ?? 'off';
const sampler = mode === 'off' ? null : bufferSampler(mode === 'wrapped' ? { interval: Infinity } : {}); // wrapped: the statics wrapped, nothing ever sampled
sampler?.start();

const kept = [];
setInterval(() => kept.push(Buffer.alloc(17 * 1024)), 1000); // ≈ 1 MiB/min

function body(i) {
  const parts = [];
  for (let k = 0; k < 16; k++) parts.push(Buffer.allocUnsafe(2048).fill(k + i));
  const json = Buffer.from(JSON.stringify({ i, n: parts.length, at: Date.now() }));
  return Buffer.concat([...parts, json]);
}

let n = 0;
http.createServer((req, res) => {
  if (req.url === '/mem') return res.end(JSON.stringify(process.memoryUsage()));
  if (req.url === '/table') {
    const t0 = performance.now();
    const t = sampler?.read() ?? null;
    return res.end(JSON.stringify({ ms: performance.now() - t0, sites: t?.sites.length ?? 0 }));
  }
  res.end(body(n++));
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ event: 'listening' })}\n`));
