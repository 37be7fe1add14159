// What the workers' sample windows cost the primary's heap: N idle workers' windows filled to the
// sample history (10 minutes of 1 s polls at the defaults), each Sample built by the checkout's
// own poller from an agent-like reply, and the decide step run over them every 50 s, as a primary
// keeps them. Measured, not computed: the heap used after two full GCs, in a fresh child process
// per leg (node --expose-gc). With --old DIR, the same in the checkout at DIR, legs alternating.
//   node bench/window-memory.js [--write] [--workers 128] [--rounds 2] [--old DIR]
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { publish, table } from './lib/results.js';
import { oldTree, OLD_USAGE } from './lib/versus.js';
import { fx, mean } from './lib/stats.js';

const MiB = 1024 * 1024;

// In the child: the windows of `workers` workers under the checkout at `root`, and what they took.
async function measure(root, workers) {
  const load = (file) => import(pathToFileURL(path.join(root, file)).href);
  const { decide, newPolicyState } = await load('src/core/policy/decide.js');
  const { SampleWindow } = await load('src/core/forecast/sample-window.js');
  const { defaultConfig } = await load('src/config/validate.js');
  const { buildSample } = await load('src/primary/tick/poller.js');
  const { sampleHistoryMs } = await load('src/primary/lifecycle/pool.js');
  const config = { ...defaultConfig(), workers };
  const historyMs = sampleHistoryMs(config);
  const heap = () => { globalThis.gc(); globalThis.gc(); return process.memoryUsage().heapUsed; };
  let seed = 1;
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  // One idle worker's reply: memory flat within a few hundred KiB, counters creeping.
  const reply = (i) => {
    const used = 9 * MiB + noise() * 0.4 * MiB;
    const rss = 52 * MiB + noise() * 0.2 * MiB;
    return {
      rss, fds: 21, heapUsed: used, heapTotal: 12 * MiB, heapLimit: 4096 * MiB, heapPhysical: 11 * MiB, heapFloor: used - 0.5 * MiB,
      external: 1.6 * MiB, arrayBuffers: 0.1 * MiB, newSpace: MiB, gcCount: i >> 3, gcMs: i >> 2, majorGcCount: i >> 7,
      minorGcCount: i >> 3, minorGcMs: i >> 3, elu: 0.001, delayP50: 10, delayP99: 11, delayMax: 12, cpuWaitShare: 0, requests: 0,
      handles: 3, resources: { TCPServerWrap: 1, Timeout: 1, PipeWrap: 1 }, threads: 0, threadsHeapUsed: 0, threadsHeapPhysical: 0,
    };
  };
  const before = heap();
  const start = 1_700_000_000_000;
  const fleet = Array.from({ length: workers }, (_, k) => ({
    id: k + 1, slot: k, pid: 1000 + k, startedAt: start, readyAt: start + 500, lastReplyAt: 0, jitterDraw: 0,
    window: new SampleWindow({ maxAgeMs: historyMs, maxSamples: Math.ceil(historyMs / config.pollInterval) + 8 }),
  }));
  let state = newPolicyState(workers);
  const polls = Math.ceil(historyMs / config.pollInterval) + 100;
  for (let i = 0; i < polls; i++) {
    const now = start + 1000 + i * config.pollInterval;
    for (const w of fleet) {
      const stats = reply(i);
      w.window.push(buildSample(now, w.pid, { own: { rss: stats.rss, pss: null, anon: null }, children: 0, childrenRss: 0, childrenPss: 0, fds: 21 }, stats));
    }
    if (i % 50 === 0 || i === polls - 1) state = decide(state, fleet, now, { config, totalLimit: null, cgroupLimit: null }).state;
  }
  const after = heap();
  return { heap: after - before, samples: fleet[0].window.size };
}

if (process.argv[2] === '--child') {
  process.stdout.write(JSON.stringify(await measure(process.argv[3], Number(process.argv[4]))));
  process.exit(0);
}

const opts = benchArgs({
  workers: { type: 'string', default: '128' }, rounds: { type: 'string' }, old: { type: 'string' },
}, `node bench/window-memory.js [--quick] [--write] [--workers N] [--rounds N] [--old DIR]\n  ${OLD_USAGE}`);
const OLD = opts.old ? oldTree(opts.old) : null;
const WORKERS = Number(opts.workers);
const ROUNDS = Number(opts.rounds ?? (opts.quick ? 1 : 2));
const SELF = fileURLToPath(import.meta.url);

const leg = (root) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', SELF, '--child', root, String(WORKERS)], { encoding: 'utf8' }));
const legs = { new: [], old: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const which of (r % 2 ? ['new', 'old'] : ['old', 'new'])) {
    if (which === 'old' && !OLD) continue;
    const m = leg(which === 'old' ? OLD.root : ROOT);
    legs[which].push(m);
    process.stderr.write(`round ${r + 1} ${which}: ${fx(m.heap / MiB, 2)} MiB for ${WORKERS} windows of ${m.samples} samples\n`);
  }
}
const row = (label, xs) => [label, xs.length, fx(mean(xs.map((m) => m.heap)) / MiB, 2), fx(mean(xs.map((m) => m.heap)) / WORKERS / 1024, 1), xs[0].samples];
const rows = [...(OLD ? [row(`old (${OLD.commit})`, legs.old)] : []), row('this checkout', legs.new)];
const delta = OLD ? (mean(legs.new.map((m) => m.heap)) - mean(legs.old.map((m) => m.heap))) / WORKERS / 1024 : null;
publish({ ...opts, command: `node bench/window-memory.js --workers ${WORKERS} --rounds ${ROUNDS}${OLD ? ' --old DIR' : ''}${opts.write ? ' --write' : ''}`, old: OLD?.root ?? null },
  OLD ? 'window-memory-vs-old' : 'window-memory', 'What the workers\' sample windows cost the primary\'s heap', [
    `${WORKERS} idle workers' sample windows filled to the sample history (the defaults: 1 s polls, 10 minutes), each Sample built by the checkout's own poller from an agent-like reply, the decide step run over them every 50 s; the heap used after two full GCs, less what it was before, in a fresh \`node --expose-gc\` child per leg, ${ROUNDS} round(s)${OLD ? ', old and new in turns' : ''}.`,
    '',
    table(['primary', 'legs', 'heap MiB', 'KiB a worker', 'samples a window'], rows),
    ...(OLD ? ['', `**new − old: ${fx(delta, 1)} KiB a worker.**`] : []),
  ].join('\n'));
