// The after-profile bench's app: JS-heavy work whose small allocating function V8 inlines into its
// caller. Warmed up, then (MODE after) the agent's heap profiler runs for a second and is stopped,
// as a suspicion that ends leaves a worker; then the work is warmed again and measured. Prints
// calls of the caller per ms of CPU, as JSON.
//   MODE: after | never (no profiler); NODESUP_ROOT: another checkout's profiler (--old)
import { pathToFileURL } from 'node:url';

const root = process.env.NODESUP_ROOT ? pathToFileURL(`${process.env.NODESUP_ROOT}/`) : new URL('../../', import.meta.url);
const { heapProfiler } = await import(new URL('src/worker/sites/heap-profiler.js', root).href);
const { inlinedWork } = await import('./inlined-work.js');

const { busy, work, calls } = inlinedWork(1023);

busy(1000);
if (process.env.MODE === 'after') {
  const p = heapProfiler({ deopt: true, adapt: false, start: null });
  if (!(await p.sample())) throw new Error(`no profiler: ${p.reason}`);
  await work(1000);
  p.stop();
}
busy(1000);
const n0 = calls();
const t0 = process.cpuUsage();
await work(2000);
const cpu = process.cpuUsage(t0);
process.stdout.write(`${JSON.stringify({ callsPerCpuMs: (calls() - n0) / ((cpu.user + cpu.system) / 1000) })}\n`);
