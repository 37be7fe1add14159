import test from 'ava';
// The core gives each piece of advice as a code and its facts; report/advice-words.js says it.
// Both are tested here, on the same tables: what a person reads is what these facts mean.
import { advise, ADVICE, AdviceView } from '../../../src/core/policy/advice.js';
import { adviceText } from '../../../src/report/advice-words.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

// A healthy worker: every advice rule sees a known, unremarkable value.
const HEALTHY = {
  t: 0, pid: 1, rss: 180 * MiB, pss: null, anon: null, treeRss: 180 * MiB, treePss: null, childrenRss: 0, children: 0,
  fds: 40, heapUsed: 70 * MiB, heapTotal: 90 * MiB, heapLimit: 2 * GiB, external: 10 * MiB, arrayBuffers: 2 * MiB,
  native: 80 * MiB, newSpace: 32 * MiB, gcCount: 100, gcMs: 300, majorGcCount: 3, elu: 0.3, delayP50: 11, delayP99: 20,
  requests: 1000, handles: 30, agent: true, gcShareLastMinute: 0.02,
};
// A coherent setup: the rss limit is above V8's heap limit and below the container's.
const CTX = { limits: { rss: 3 * GiB, heapUsed: null, native: null }, cgroupLimit: 8 * GiB, heapSpaces: null };
const codes = (lines) => lines.map((l) => l.code);

test('a healthy worker gets no advice', (t) => {
  t.deepEqual(advise(HEALTHY, CTX), []);
});

const ADVISED = [
  // incident 2 (docs/incidents.md): 665 MiB RSS over a 129 MiB heap
  ['native-gap', { rss: 665 * MiB, heapTotal: 129 * MiB, external: 24 * MiB, native: 512 * MiB }, {}, ADVICE.NATIVE_GAP, ['5.2×', '512 MiB', 'MALLOC_ARENA_MAX=2']],
  ['native-gap without a native field', { rss: 665 * MiB, heapTotal: 129 * MiB, external: 24 * MiB, native: null }, {}, ADVICE.NATIVE_GAP, ['512 MiB']],
  // Told apart by the trend of native memory: flat is the allocator keeping freed memory (incident 2) …
  ['native-gap, flat: allocator retention, the exact env line', { rss: 665 * MiB, heapTotal: 129 * MiB, native: 512 * MiB, nativeRising: false }, {}, ADVICE.NATIVE_GAP, ['flat', "env: { MALLOC_ARENA_MAX: '2' }"]],
  // … rising is native allocations that grow: zlib streams opened per request and never ended.
  ['native-gap, rising: native allocations that grow', { rss: 665 * MiB, heapTotal: 129 * MiB, native: 512 * MiB, nativeRising: true }, {}, ADVICE.NATIVE_GAP, ['rising', 'zlib']],
  // incident 1: new space shrunk to 8 MiB, then 2 MiB, under a 512 MiB pod limit
  // … and only with the scavenger hot: scavenges a second, or their share of the time
  ['tiny-new-space', { newSpace: 2 * MiB, scavengesPerSec: 120 }, { cgroupLimit: 512 * MiB }, ADVICE.TINY_NEW_SPACE, ['2.0 MiB', '512 MiB', '120 scavenges/s', '--max-semi-space-size=16']],
  ['tiny-new-space at exactly 8 MiB, 10 scavenges/s', { newSpace: 8 * MiB, scavengesPerSec: 10 }, {}, ADVICE.TINY_NEW_SPACE, ['8.0 MiB']],
  ['tiny-new-space from heapSpaces, 3 % of the time in scavenges', { newSpace: null, minorGcShare: 0.03 }, { heapSpaces: [{ space_name: 'old_space', space_size: 90 * MiB }, { space_name: 'new_space', space_size: 4 * MiB }] }, ADVICE.TINY_NEW_SPACE, ['4.0 MiB']],
  ['tiny-new-space without a cgroup limit (a flag capped it)', { newSpace: 2 * MiB, scavengesPerSec: 80 }, { cgroupLimit: null }, ADVICE.TINY_NEW_SPACE, ['2.0 MiB', '80 scavenges/s']],
  // incident 3: GC at 13 % of CPU, and why, where the agent can see it
  ['gc-share', { gcShareLastMinute: 0.13 }, {}, ADVICE.GC_SHARE, ['13%', 'allocation rate']],
  ['gc-share: a GC flag named', { gcShareLastMinute: 0.13, gcFlags: ['--no-concurrent-marking'] }, {}, ADVICE.GC_SHARE, ['13%', '--no-concurrent-marking']],
  ['gc-share: the heap near its limit named', { gcShareLastMinute: 0.2, heapUsed: 1.5 * GiB }, {}, ADVICE.GC_SHARE, ['75% of its limit']],
  ['gc-share: a small new space named', { gcShareLastMinute: 0.2, newSpace: 2 * MiB, scavengesPerSec: 200 }, {}, ADVICE.GC_SHARE, ['2.0 MiB new space']],
  ['loop-delay', { delayP99: 250.4 }, {}, ADVICE.LOOP_DELAY, ['250 ms']],
  ['loop-delay with the CPU at hand: blocking code', { delayP99: 250.4, cpuWaitShare: 0.02 }, {}, ADVICE.LOOP_DELAY, ['250 ms', 'blocks']],
  // Three healthy apps got "synchronous work blocks" while other processes had the machine's CPUs.
  ['cpu-starvation: the loop\'s thread waited for a CPU', { delayP99: 378, cpuWaitShare: 0.45 }, {}, ADVICE.CPU_STARVATION, ['378 ms', '45%', 'starved']],
  // incident 3: concurrent marking off, named before any GC share shows it
  ['gc-flags at a healthy GC share', { gcFlags: ['--no-concurrent-marking', '--max-old-space-size=512'] }, {}, ADVICE.GC_FLAGS, ['--no-concurrent-marking']],
  ['heap-near-limit', { heapUsed: 1.9 * GiB }, {}, ADVICE.HEAP_NEAR_LIMIT, ['95%', '2.0 GiB']],
  ['heap-limit-above-rss', {}, { limits: { rss: 512 * MiB } }, ADVICE.HEAP_LIMIT_ABOVE_RSS, ['2.0 GiB', '512 MiB', '--max-old-space-size=384']],
  ['rss-limit-above-cgroup', {}, { limits: { rss: 1 * GiB }, cgroupLimit: 768 * MiB }, ADVICE.RSS_LIMIT_ABOVE_CGROUP, ['1.0 GiB', '768 MiB']],
  // incident 5: a transport holding hundreds of sockets
  ['fd-growth', { fds: 1200 }, {}, ADVICE.FD_GROWTH, ['1200']],
  ['handles', { handles: 5000 }, {}, ADVICE.HANDLES, ['5000']],
];
for (const [name, patch, ctx, code, mentions] of ADVISED) {
  test(`advice: ${name}`, (t) => {
    const lines = advise({ ...HEALTHY, ...patch }, { ...CTX, ...ctx });
    const line = lines.find((l) => l.code === code);
    t.truthy(line, JSON.stringify(lines));
    const message = adviceText(line);
    for (const text of mentions) t.true(message.includes(text), `${message} lacks ${text}`);
    t.false('message' in line, 'the decision carries facts, not prose');
  });
}

// Just under each bar, no advice: the bars are where the docs say they are.
for (const [name, patch, ctx] of [
  ['native-gap: rss at 2× heapTotal', { rss: 200 * MiB, heapTotal: 100 * MiB, native: 150 * MiB }, {}],
  ['native-gap: gap ≤ 100 MiB', { rss: 150 * MiB, heapTotal: 50 * MiB, external: 5 * MiB, native: 95 * MiB }, {}],
  ['native-gap: the trend not known yet (the tick waits to tell retention from growth)', { rss: 665 * MiB, heapTotal: 129 * MiB, native: 512 * MiB, nativeRising: null }, {}],
  ['tiny-new-space: an idle worker (V8 starts the new space at 1 MiB and grows it on demand)', { newSpace: 1 * MiB, scavengesPerSec: 0.2, minorGcShare: 0.0001 }, {}],
  ['tiny-new-space: scavenger rate unknown', { newSpace: 2 * MiB }, {}],
  ['tiny-new-space: 16 MiB, however hot', { newSpace: 16 * MiB, scavengesPerSec: 300 }, {}],
  ['gc-share: 10 %', { gcShareLastMinute: 0.1 }, {}],
  ['loop-delay: 100 ms', { delayP99: 100 }, {}],
  ['heap-near-limit: 85 %', { heapUsed: 0.85 * 2 * GiB }, {}],
  ['fd-growth: 1000', { fds: 1000 }, {}],
]) {
  test(`no advice: ${name}`, (t) => {
    const lines = advise({ ...HEALTHY, ...patch }, { ...CTX, ...ctx });
    t.deepEqual(codes(lines), []);
  });
}

test('unknown is no advice, never a wrong one', (t) => {
  const blank = Object.fromEntries(Object.keys(HEALTHY).map((k) => [k, null]));
  t.deepEqual(advise(blank, { limits: null, cgroupLimit: null, heapSpaces: null }), []);
  t.deepEqual(advise(blank, CTX), []);
  t.deepEqual(advise(null, CTX), []);
  t.deepEqual(advise({ ...HEALTHY, heapTotal: 0, heapLimit: 0 }, CTX), []);
  t.deepEqual(advise(HEALTHY), []);
});

test('every message fits 120 chars, even with the largest numbers', (t) => {
  const worst = {
    ...HEALTHY, rss: 1023 * GiB, heapTotal: 1 * GiB, heapUsed: 3.99 * GiB, heapLimit: 4 * GiB, external: 1, native: 1000 * GiB,
    newSpace: 7.9 * MiB, gcShareLastMinute: 0.999, delayP99: 123456.7, fds: 1_048_576, handles: 10_000_000, scavengesPerSec: 123456, gcFlags: ['--max-semi-space-size=123456789', '--no-concurrent-marking-and-more-words'],
  };
  const lines = [
    ...advise({ ...worst, cpuWaitShare: 0.999 }, { limits: { rss: 1023 * GiB }, cgroupLimit: 1000 * GiB }),
    ...advise({ ...worst, heapLimit: 1023 * GiB }, { limits: { rss: 1000 * GiB }, cgroupLimit: 1023 * GiB }),
    ...[true, false].flatMap((nativeRising) => advise({ ...worst, nativeRising }, { limits: { rss: 1023 * GiB }, cgroupLimit: 1000 * GiB })),
  ];
  // overcommit, oom-kill, oom-group and sticky-sessions are the fleet's, the exit's, the container's and engine.io's advice, not a sample's.
  const fromSamples = Object.values(ADVICE).filter((c) => c !== ADVICE.OVERCOMMIT && c !== ADVICE.OOM_KILL && c !== ADVICE.OOM_GROUP && c !== ADVICE.STICKY_SESSIONS);
  t.deepEqual([...new Set(codes(lines))].sort(), fromSamples.sort());
  t.false(advise({ ...HEALTHY, gcFlags: ['--max-old-space-size=512', '--max-semi-space-size=16'] }, CTX).some((a) => a.code === ADVICE.GC_FLAGS), 'sizing flags are not main-thread GC');
  for (const message of lines.map(adviceText)) t.true(message.length <= 120, `${message.length}: ${message}`);
});

test('most urgent first, one line per code', (t) => {
  const lines = advise({ ...HEALTHY, heapUsed: 1.95 * GiB, fds: 5000, delayP99: 300 }, { ...CTX, limits: { rss: 512 * MiB } });
  t.is(lines[0].code, ADVICE.HEAP_NEAR_LIMIT);
  t.is(lines.at(-1).code, ADVICE.FD_GROWTH);
  t.is(new Set(codes(lines)).size, lines.length);
});

test('native-gap: the trend (a fit over two minutes) is read only for a worker whose gap is large', (t) => {
  let reads = 0;
  const withTrend = (s) => Object.defineProperty({ ...s }, 'nativeRising', { get: () => { reads++; return false; } });
  advise(withTrend({ rss: 46 * MiB, heapTotal: 5 * MiB, native: 40 * MiB }));
  t.is(reads, 0, 'an idle worker: RSS 9× its heap, but 40 MiB outside it');
  const out = advise(withTrend({ rss: 665 * MiB, heapTotal: 129 * MiB, native: 512 * MiB }));
  t.is(reads, 1);
  t.like(out.find((a) => a.code === ADVICE.NATIVE_GAP), { rising: false });
});

// The decide step hands advise() an AdviceView, which copies only some of the sample's fields: a
// field advise() reads that the view does not copy would read as unknown there, and its advice
// would never be given on a running primary.
test('advise() reads nothing of a worker that AdviceView does not carry, and says the same through it', (t) => {
  const GC = ['gcShareLastMinute', 'scavengesPerSec', 'minorGcShare'];
  for (const [name, patch, ctx] of ADVISED) {
    const sample = { ...HEALTHY, ...patch };
    const gc = Object.fromEntries(GC.map((k) => [k, sample[k] ?? null]));
    const view = new AdviceView(sample, gc, () => sample.nativeRising ?? false);
    const carried = new Set([...Object.keys(view), 'nativeRising']);
    const read = new Set();
    const watched = new Proxy(sample, { get(target, key) { read.add(key); return target[key]; } });
    advise(watched, { ...CTX, ...ctx });
    for (const key of read) t.true(carried.has(key), `${name}: advise() reads ${String(key)}, which AdviceView does not carry`);
    t.deepEqual(advise(view, { ...CTX, ...ctx }), advise({ ...sample, nativeRising: sample.nativeRising ?? false }, { ...CTX, ...ctx }), name);
  }
});
