// The after-profile bench's app: JS-heavy work whose small allocating function V8 inlines into its
// caller. Warmed up, then (MODE after) the agent's heap profiler runs for a second and is stopped,
// as a suspicion that ends leaves a worker; then the work is warmed again and measured. Prints
// calls of the caller per ms of CPU, as JSON.
//   MODE: after | never (no profiler); NODESUP_ROOT: another checkout's profiler (--old)
import { pathToFileURL } from 'node:url';

const root = process.env.NODESUP_ROOT ? pathToFileURL(`${process.env.NODESUP_ROOT}/`) : new URL('../../', import.meta.url);
const { heapProfiler } = await import(new URL('src/worker/sites/heap-profiler.js', root).href);

const kept = [];
function cacheUser(i) {
  const user = { id: i, name: 'user', tags: [i, i + 1, i + 2] };
  if ((i & 1023) === 0) kept.push(user);
  return user;
}
function handle(i) {
  let s = 0;
  for (let k = 0; k < 20; k++) s += cacheUser(i * 20 + k).id;
  return s;
}
let n = 0;
const busy = (ms) => { for (const end = Date.now() + ms; Date.now() < end;) handle(n++); };
const turn = () => new Promise((resolve) => setImmediate(resolve));
const work = async (ms) => { for (let r = 0; r < ms / 100; r++) { busy(100); await turn(); } };

busy(1000);
if (process.env.MODE === 'after') {
  const p = heapProfiler({ deopt: true, adapt: false, start: null });
  if (!(await p.sample())) throw new Error(`no profiler: ${p.reason}`);
  await work(1000);
  p.stop();
}
busy(1000);
const n0 = n;
const t0 = process.cpuUsage();
await work(2000);
const cpu = process.cpuUsage(t0);
process.stdout.write(`${JSON.stringify({ callsPerCpuMs: (n - n0) / ((cpu.user + cpu.system) / 1000) })}\n`);
