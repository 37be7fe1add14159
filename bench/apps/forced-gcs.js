// The tick-shapes bench's app: a hello world that, from its first request on, has six full GCs
// forced from timers 400 ms apart, as a suspicion's confirmation points and the sites' profiler's
// reads force them. GET /mem, memoryUsage().
//   PORT, MODE: off (no forced GC) | kept (nodesup's fullGc, a tick queued first) | bare (gc() alone)
import http from 'node:http';
import vm from 'node:vm';
import v8 from 'node:v8';
import { fullGc } from '../../src/worker/full-gc.js';

const mode = process.env.MODE ?? 'off';
v8.setFlagsFromString('--expose-gc');
const bareGc = vm.runInNewContext('gc');
const gc = mode === 'kept' ? fullGc : mode === 'bare' ? bareGc : null;

let started = false;
http.createServer((req, res) => {
  if (req.url === '/mem') return res.end(JSON.stringify(process.memoryUsage()));
  if (!started && gc) {
    started = true;
    for (let i = 0; i < 6; i++) setTimeout(gc, 100 + i * 400);
  }
  res.end('hello world');
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ event: 'listening' })}\n`));
