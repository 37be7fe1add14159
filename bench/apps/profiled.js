// The sites-cost bench's app: an HTTP server that builds a ~20 KiB JSON body from fresh objects per
// request and keeps 1 MiB a minute (so the profile has live samples), with the agent's heap
// profiler started at boot, or (adaptive) at the first request. GET /profile times one sample (profile
// read and flattened, as a confirmation point does) and reports its size; GET /mem, memoryUsage().
//   PORT, MODE: off | sampling (profiler alone) | sites (profiler, inlining off, V8's default
//   interval throughout) | adaptive (profiler, inlining off, as nodesup runs it: started at the first
//   request, under load as a suspicion starts it, its interval calibrated to the allocation rate) |
//   after (profiler and inlining off from the first request for AFTER_MS, then stopped: the app as a
//   suspicion leaves it)
import http from 'node:http';
import { pathToFileURL } from 'node:url';

// NODESUP_ROOT: another checkout's profiler in the same app (sites-cost.js --old).
const root = process.env.NODESUP_ROOT ? pathToFileURL(`${process.env.NODESUP_ROOT}/`) : new URL('../../', import.meta.url);
const { heapProfiler } = await import(new URL('src/worker/sites/heap-profiler.js', root).href);

const AFTER_MS = 2000; // mode after: how long the profiler runs from the first request
const mode = process.env.MODE ?? 'off';
const profiler = mode === 'off' ? null : heapProfiler({ deopt: mode !== 'sampling', adapt: mode === 'adaptive' });
let started = null;
const start = async () => {
  await profiler.sample();
  if (profiler.reason) throw new Error(profiler.reason);
  if (mode === 'after') setTimeout(() => profiler.stop(), AFTER_MS);
};
if (profiler && mode !== 'adaptive' && mode !== 'after') started = await start().then(() => true);

const kept = [];
setInterval(() => kept.push(new Array(2200).fill(kept.length + 0.5)), 1000); // ~17 KiB/s ≈ 1 MiB/min

function row(i) {
  return { id: i, name: `user ${i}`, email: `u${i}@example.com`, score: Math.sqrt(i) * 3, tags: ['a', 'b', String(i % 7)] };
}
function body() {
  const rows = [];
  for (let i = 0; i < 200; i++) rows.push(row(i));
  return JSON.stringify({ rows, total: rows.reduce((a, r) => a + r.score, 0) });
}

http.createServer(async (req, res) => {
  if (req.url === '/mem') return res.end(JSON.stringify(process.memoryUsage()));
  if (req.url === '/profile') {
    if (mode === 'after') return res.end(JSON.stringify({ ms: null, bytes: null, interval: null }));
    const t0 = performance.now();
    const flat = profiler ? await profiler.sample() : null;
    return res.end(JSON.stringify({ ms: performance.now() - t0, bytes: JSON.stringify(flat ?? {}).length, interval: profiler?.interval ?? null }));
  }
  if (profiler && started === null) started = start();
  res.setHeader('content-type', 'application/json');
  res.end(body());
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ event: 'listening' })}\n`));
