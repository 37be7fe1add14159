// One leg of a one-process bench: the app started in one mode, warmed up, put under keep-alive
// load with its CPU metered, then asked for its memory and (given `read`, in a sampling mode) what
// one read of its sampler cost. sites-cost.js and buffer-sampler-cost.js differ only in the app
// and what its read is called; tick-shapes.js reads the CPU a response.
import { startPrimary, freePort, load } from './spawn.js';
import { cpuMeter } from './proc.js';

const getJson = async (url) => (await fetch(url)).json();

/**
 * @param {{app:string, mode:string, connections:number, duration:number, warmup:number,
 *   read?: string, size?: (r:object) => number|null, env?: object}} o  read: the app's path for one sampler read; size: what it returned; env: the app's, beside PORT and MODE
 * @returns {Promise<{mode:string, reqPerSec:number, p99:number, failed:number, cpuUs:number, rss:number, heapUsed:number, profileMs:number|null, profileBytes:number|null}>}
 *   cpuUs: the app process's CPU (utime+stime) over the measured load, a response, µs
 */
export async function appLeg({ app, mode, connections, duration, warmup, read, size, env = {} }) {
  const port = await freePort();
  const run = startPrimary([app], { env: { ...env, PORT: String(port), MODE: mode }, name: `app (${mode})` });
  try {
    await run.waitFor((e) => e.event === 'listening', { what: 'listening' });
    const url = `http://127.0.0.1:${port}/`;
    if (warmup > 0) await load({ url, connections, duration: warmup }).result;
    const cpu = cpuMeter(run.pid);
    cpu.start();
    const r = await load({ url, connections, duration }).result;
    const used = cpu.stop();
    const mem = await getJson(`${url}mem`);
    const profile = mode === 'off' || !read ? null : await getJson(`${url}${read}`);
    return {
      mode, reqPerSec: r.reqPerSec.mean, p99: r.latencyMs.p99, failed: r.failed, cpuUs: used ? (used.cpuSeconds * 1e6) / r.responses : NaN,
      rss: mem.rss, heapUsed: mem.heapUsed, profileMs: profile?.ms ?? null, profileBytes: profile ? size(profile) : null,
    };
  } finally {
    run.child.kill('SIGTERM');
    await run.exited;
  }
}
