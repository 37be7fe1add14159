// One leg of a one-process bench: the app started in one mode, warmed up, put under keep-alive
// load with its CPU metered, then asked for its memory and (given `read`, in a sampling mode) what
// one read of its sampler cost. sites-cost.js and buffer-sampler-cost.js differ only in the app
// and what its read is called; tick-shapes.js reads the CPU a response. The same parts serve a
// bench that keeps every mode's process up at once and loads them in turns (sites-cost --together).
import { startPrimary, freePort, load } from './spawn.js';
import { cpuMeter } from './proc.js';

const getJson = async (url) => (await fetch(url)).json();

/**
 * The app up in one mode, listening. stop() ends it.
 * @param {{app:string, mode:string, env?:object}} o  env: the app's, beside PORT and MODE
 */
export async function appUp({ app, mode, env = {} }) {
  const port = await freePort();
  const run = startPrimary([app], { env: { ...env, PORT: String(port), MODE: mode }, name: `app (${mode})` });
  const stop = async () => { run.child.kill('SIGTERM'); await run.exited; };
  try {
    await run.waitFor((e) => e.event === 'listening', { what: 'listening' });
  } catch (err) {
    await stop();
    throw err;
  }
  return { mode, run, url: `http://127.0.0.1:${port}/`, stop };
}

/**
 * One burst of keep-alive load on an app that is up, its CPU metered.
 * @returns {Promise<{reqPerSec:number, p99:number, failed:number, cpuUs:number}>}  cpuUs: the app process's CPU (utime+stime) a response, µs
 */
export async function appBurst(up, { connections, duration }) {
  const cpu = cpuMeter(up.run.pid);
  cpu.start();
  const r = await load({ url: up.url, connections, duration }).result;
  const used = cpu.stop();
  return { reqPerSec: r.reqPerSec.mean, p99: r.latencyMs.p99, failed: r.failed, cpuUs: used ? (used.cpuSeconds * 1e6) / r.responses : NaN };
}

/** The app's memory, and (given `read`, in a sampling mode) what one read of its sampler cost. */
export async function appRead(up, { read, size }) {
  const mem = await getJson(`${up.url}mem`);
  const profile = up.mode === 'off' || !read ? null : await getJson(`${up.url}${read}`);
  return { rss: mem.rss, heapUsed: mem.heapUsed, profileMs: profile?.ms ?? null, profileBytes: profile ? size(profile) : null };
}

/**
 * @param {{app:string, mode:string, connections:number, duration:number, warmup:number,
 *   read?: string, size?: (r:object) => number|null, env?: object}} o  read: the app's path for one sampler read; size: what it returned; env: the app's, beside PORT and MODE
 * @returns {Promise<{mode:string, reqPerSec:number, p99:number, failed:number, cpuUs:number, rss:number, heapUsed:number, profileMs:number|null, profileBytes:number|null}>}
 *   cpuUs: the app process's CPU (utime+stime) over the measured load, a response, µs
 */
export async function appLeg({ app, mode, connections, duration, warmup, read, size, env = {} }) {
  const up = await appUp({ app, mode, env });
  try {
    if (warmup > 0) await load({ url: up.url, connections, duration: warmup }).result;
    const r = await appBurst(up, { connections, duration });
    return { mode, ...r, ...(await appRead(up, { read, size })) };
  } finally {
    await up.stop();
  }
}
