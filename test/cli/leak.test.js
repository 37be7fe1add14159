// Leak intelligence end to end: leaks recycled (or warned about) before any hard limit with the
// part that grew named, a full GC sparing a worker whose memory was only garbage, `inspect` on a
// live worker, and a cgroup limit from fixture files turned into a fleet limit.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, runCli, freePort, scratch, ROOT, writeConfig as writeConfigFile } from '../helpers/cli.js';

const MiB = 1024 * 1024;
const corpus = (name) => path.join(ROOT, 'bench/corpus', `${name}.js`);
// A 10 s window at 250 ms polls: the policy judges from 1.9 windows after ready on (warm-up + coverage).
const FAST_LEAK = { window: '10s', minGrowth: '1mb/min' };

const writeConfig = (t, obj) => writeConfigFile(t, { workers: 1, pollInterval: '250ms', metrics: false, ...obj });

// A tiny app written for one test (ESM, so .mjs outside the package).
function writeApp(t, source) {
  const dir = scratch();
  const file = path.join(dir, 'app.mjs');
  fs.writeFileSync(file, source);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { file, dir };
}

const env = async (extra = {}) => ({ env: { PORT: String(await freePort()), ...extra } });
const recycled = (e) => e.event === 'worker.recycle';

test('a slow heap leak is recycled as `leak` (kind heap) far below its rss limit', async (t) => {
  const rss = 1024 * MiB;
  const cfg = writeConfig(t, { limits: { rss: '1gb' }, leak: FAST_LEAK });
  const run = startCli(t, [corpus('heap-leak-slow'), '-c', cfg], await env({ LEAK_MB_PER_MIN: '12' }));
  const ready = await run.waitFor((e) => e.event === 'worker.ready');
  const ev = await run.waitFor(recycled, { what: 'the leak recycle' });
  t.like(ev, { slot: 0, pid: ready.pid, reason: 'leak', kind: 'heap', limit: Math.round((1 * MiB) / 60) });
  t.true(ev.value >= ev.limit, `growth ${ev.value} B/s must reach minGrowth ${ev.limit} B/s`);
  t.like(ev.trend, { field: 'heapFloor', windowMs: 10_000 }); // the agent's post-GC heap, not polled heapUsed
  t.true(ev.trend.r2 >= 0.8);
  t.true(ev.memory.rss < rss / 4, `tree RSS at recycle ${ev.memory.rss} is well below limits.rss ${rss}`);
  t.true(ev.uptimeMs >= 19_000, 'not judged during the warm-up window');
  t.is(run.count((e) => e.event === 'leak.suspected'), 0, 'a suspicion is said at debug only');
  const next = await run.waitFor((e) => e.event === 'worker.spawn' && e.cause === 'replace');
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === ready.pid, { what: 'the leaking worker gone' });
  t.not(next.pid, ready.pid);
});

test('a Buffer leak is attributed to external memory', async (t) => {
  const cfg = writeConfig(t, { limits: { rss: '1gb' }, leak: FAST_LEAK });
  const run = startCli(t, [corpus('buffer-leak'), '-c', cfg], await env({ LEAK_MB_PER_MIN: '30', CHUNK_KB: '16' }));
  const ev = await run.waitFor(recycled, { what: 'the leak recycle' });
  t.like(ev, { reason: 'leak', kind: 'external' });
  t.is(ev.trend.field, 'external');
  // The growth named is the Buffers' own rate (30 MiB/min), not the tree's or the heap's.
  const rate = (30 * MiB) / 60;
  t.true(ev.trend.growthBytesPerSec > 0.5 * rate && ev.trend.growthBytesPerSec < 2 * rate, String(ev.trend.growthBytesPerSec));
  t.true(ev.memory.external > 8 * MiB, 'the Buffers are in the recycle event');
});

test("leak.action 'warn' logs leak.warning and never recycles", async (t) => {
  const cfg = writeConfig(t, { limits: { rss: '1gb' }, leak: { ...FAST_LEAK, window: '8s', action: 'warn' } });
  const run = startCli(t, [corpus('heap-leak-fast'), '-c', cfg], await env({ LEAK_MB_PER_MIN: '30' }));
  const ready = await run.waitFor((e) => e.event === 'worker.ready');
  const first = await run.waitFor((e) => e.event === 'leak.warning', { what: 'a leak warning' });
  t.like(first, { slot: 0, pid: ready.pid, kind: 'heap' });
  t.true(first.growthBytesPerSec >= (1 * MiB) / 60);
  t.true(first.projectedLimitInSec > 0);
  // Warnings repeat once per window while the leak goes on; the worker is the same one throughout.
  const second = await run.waitFor((e) => e.event === 'leak.warning' && e !== first, { what: 'the next leak warning' });
  t.is(second.pid, ready.pid);
  t.true(Date.parse(second.time) - Date.parse(first.time) >= 8000 - 500);
  t.is(run.count(recycled), 0);
  t.is(run.count((e) => e.event === 'worker.spawn'), 1);
});

test('at debug, a suspicion is said as it begins: what leak detection is checking, and with what', async (t) => {
  // A window longer than the test: the leak is judged by full-GC points, not by the window's fit.
  const cfg = writeConfig(t, { limits: { rss: '1gb' }, leak: { window: '5m', minGrowth: '1mb/min', warmUp: '20s', action: 'warn' } });
  const run = startCli(t, [corpus('heap-leak-fast'), '-c', cfg, '--log-level', 'debug'], await env({ LEAK_MB_PER_MIN: '30' }));
  const ready = await run.waitFor((e) => e.event === 'worker.ready');
  const suspected = await run.waitFor((e) => e.event === 'leak.suspected', { what: 'a suspicion', timeout: 90_000 });
  t.like(suspected, { slot: 0, pid: ready.pid, heap: true, level: 20 });
  t.regex(suspected.msg, /^slot 0: pid \d+'s heap.* rose; checking with full GCs/);
});

test('GC before recycle: memory that was only garbage is collected and the worker kept', async (t) => {
  // 160 MiB of heap, dropped in the same tick it was built: garbage that no GC has seen yet.
  const { file } = writeApp(t, `import http from 'node:http';
const server = http.createServer((req, res) => res.end('ok\\n'));
server.listen(Number(process.env.PORT), '127.0.0.1', () => {
  setTimeout(() => {
    let junk = Array.from({ length: 160 }, () => new Array(128 * 1024).fill(0));
    globalThis.built = junk.length;
    junk = null;
  }, 8000);
});
`);
  // --single-threaded-gc: V8 otherwise hands freed pages back to the OS from a background thread,
  // and on a busy machine RSS is read before that ran (heap 4 MiB, RSS still over): a real lag
  // the recycler does not wait for yet (see the issue notes). Here the GC must be judged, not the lag.
  // The 160 MiB take a second to build, several on a loaded host, and the primary's /proc reads
  // see them rise: at 1 s polls that is a worker rising at every sample, which is rightly replaced
  // with no GC first (or early, predicted). Polls 2 s apart see at most two points of the build in
  // the 3 s that judgement looks at; prediction is off, since this test is about the GC. The build
  // starts 8 s after listening: memory over the limit within three polls of the start is a limit
  // below the app's baseline, held rather than judged.
  const cfg = writeConfig(t, { leak: false, pollInterval: '2s', recycle: { predictive: false }, nodeArgs: ['--single-threaded-gc'] });
  const run = startCli(t, [file, '-c', cfg, '--max-rss', '150mb'], await env());
  const ready = await run.waitFor((e) => e.event === 'worker.ready');
  const gc = await run.waitFor((e) => e.event === 'worker.gc', { what: 'the full GC' });
  t.deepEqual(run.events.filter(recycled), [], 'no recycle came before the GC');
  t.like(gc, { slot: 0, pid: ready.pid, reason: 'rss', stillOver: false });
  t.true(gc.rssBefore > 150 * MiB, `over the limit before: ${gc.rssBefore}`);
  t.true(gc.rssAfter < 150 * MiB, `under it after: ${gc.rssAfter}`);
  t.log(`rss ${(gc.rssBefore / MiB).toFixed(1)} → ${(gc.rssAfter / MiB).toFixed(1)} MiB, heap ${(gc.heapBefore / MiB).toFixed(1)} → ${(gc.heapAfter / MiB).toFixed(1)} MiB`);
  // rssBefore is the /proc reading that crossed the limit, which may land while the 160 MiB is still
  // being built; the heap figures are the agent's own, just before and after the GC.
  t.true(gc.rssAfter < gc.rssBefore, 'memory was given back');
  t.true(gc.heapBefore - gc.heapAfter > 100 * MiB);
  // Proof of no recycle: three more polls of that same worker, all under the limit.
  const snap = await run.waitForStatus((s) => s.slots[0].last && s.slots[0].last.t > Date.parse(gc.time) + 6000, { what: 'more polls' });
  t.is(snap.slots[0].pid, ready.pid);
  t.true(snap.slots[0].last.treeRss < 150 * MiB);
  t.is(run.count(recycled), 0);
});

test('GC before recycle that gets no answer: said at warn (answered: false), and the worker is recycled all the same', async (t) => {
  // 200 MiB kept, then the main thread blocked for good (Atomics.wait sleeps without a CPU): the
  // agent cannot answer the GC, nor anything else.
  const { file } = writeApp(t, `import http from 'node:http';
const server = http.createServer((req, res) => res.end('ok\\n'));
server.listen(Number(process.env.PORT), '127.0.0.1', () => {
  setTimeout(() => {
    globalThis.kept = Array.from({ length: 200 }, () => new Array(128 * 1024).fill(1));
    console.log(JSON.stringify({ fixture: 'blocking', worker: process.pid }));
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  }, 8000);
});
`);
  // As above: polls 2 s apart and no prediction, so the verdict is a plain one with its GC first;
  // no unresponsive check, so the memory verdict is the one that acts.
  const cfg = writeConfig(t, { leak: false, pollInterval: '2s', unresponsive: false, recycle: { predictive: false, killTimeout: '3s' } });
  const run = startCli(t, [file, '-c', cfg, '--max-rss', '150mb'], await env());
  const ready = await run.waitFor((e) => e.event === 'worker.ready');
  await run.waitFor((e) => e.fixture === 'blocking', { what: 'the worker blocking' });
  const gc = await run.waitFor((e) => e.event === 'worker.gc', { what: 'the GC that gets no answer' });
  t.like(gc, { level: 40, slot: 0, pid: ready.pid, reason: 'rss', answered: false, stillOver: true });
  t.true(gc.timeoutMs > 0);
  const recycle = await run.waitFor((e) => e.event === 'worker.recycle', { what: 'the recycle' });
  t.like(recycle, { slot: 0, pid: ready.pid, reason: 'rss' });
  const next = await run.waitFor((e) => e.event === 'worker.ready' && e.pid !== ready.pid, { what: 'the replacement ready' });
  t.is(next.slot, 0);
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === ready.pid, { what: 'the blocked worker gone' });
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('inspect on a live worker: readable text, --json and a heap snapshot', async (t) => {
  const cfg = writeConfig(t, { leak: FAST_LEAK });
  const run = startCli(t, [corpus('steady'), '-c', cfg, '--max-rss', '100mb'], await env());
  const ready = await run.waitFor((e) => e.event === 'worker.ready');
  // A poll whose window held a loop-delay reading: a worker starved of CPU from its start (the
  // whole suite on 2 cores) has none yet, and inspect then rightly shows the delay as unknown (-).
  // And a tick's judgement of that sample: a worker polled while it was still starting has a
  // sample before any tick judged it (the advice comes with the judgement, a poll later).
  await run.waitForStatus((s) => {
    const slot = s.slots[0];
    return slot.last?.agent && slot.last.heapUsed > 0 && slot.last.delayP50 != null && slot.judgedAt != null && slot.judgedAt >= slot.last.t;
  }, { what: 'a first judged sample with a loop delay' });
  const cli = (args) => runCli(args, { env: { NODESUP_RUN_DIR: run.runDir } });

  const text = await cli(['inspect', '0']);
  t.is(text.exitCode, 0, text.stderr);
  const out = text.stdout;
  t.regex(out, new RegExp(`^nodesup inspect: slot 0 · pid ${ready.pid} · up \\d`));
  t.regex(out, /\n {2}RSS, worker \+ children\s+\d+(\.\d)? MiB\s+100%\s+100 MiB \(\d+%\)\n/);
  for (const part of ['worker RSS', 'PSS, worker \\+ children', 'V8 heap used', 'V8 heap total', 'V8 heap limit', 'external', 'native', 'children']) {
    t.regex(out, new RegExp(`\\n {2}${part}.*\\d`), part);
  }
  t.regex(out, /open file descriptors \d+ · active handles \d+/);
  t.regex(out, /\nHeap spaces\n[^]*\n {2}new_space\s+\d+(\.\d)? MiB\s+\S+ \w+\s+\d+(\.\d)?%\n/);
  t.regex(out, /\nGC\n[^]*minor \(scavenge\)\s+\d+/);
  t.regex(out, /\nEvent loop\n {2}utilization \S+% · delay p50 \S+ ms · p99 \S+ ms/);
  t.regex(out, /\nMappings\n {2}\d+ anonymous, \d+ of them V8's 256 KiB pages/);
  t.regex(out, /\nTrend \(last minute\)\n {2}RSS /);
  t.regex(out, /\nAdvice\n[^]*• V8 heap limit .* is above the 100 MiB rss limit/);
  t.notRegex(out, /(anonymous|v8Pages|rssLimitInSec|count|fds|handles)\s+\d+ B\b/, 'no count printed as bytes');
  for (const line of out.split('\n')) t.true(line.length <= 100, line);

  const json = await cli(['inspect', '0', '--json']);
  t.is(json.exitCode, 0, json.stderr);
  const r = JSON.parse(json.stdout);
  t.like(r, { slot: 0, pid: ready.pid, limits: { rss: 100 * MiB } });
  t.true(r.uptimeMs > 0);
  t.true(r.sample.rss > 0 && r.sample.heapUsed > 0 && r.sample.native > 0);
  t.true(r.sample.heapFloor > 0 && r.sample.heapFloor <= r.sample.heapUsed, 'the post-GC floor is a reading at or below the heap now');
  t.true(r.heapSpaces.some((s) => s.name === 'new_space' && s.size > 0 && typeof s.used === 'number'));
  t.is(typeof r.gcByKind.minor.count, 'number');
  t.true(Number.isInteger(r.mappings.anonymous) && Number.isInteger(r.mappings.v8Pages) && r.mappings.anonRss > 0);
  t.deepEqual(Object.keys(r.trend).sort(), ['heapPerSec', 'rssLimitInSec', 'rssPerSec']);
  t.true(r.advice.some((a) => a.code === 'heap-limit-above-rss' && typeof a.message === 'string'));
  t.true('leak' in r && 'step' in r);

  const file = path.join(scratch(), 'worker.heapsnapshot');
  t.teardown(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));
  const snap = await cli(['inspect', '0', '--heap-snapshot', file]);
  t.is(snap.exitCode, 0, snap.stderr);
  t.regex(snap.stdout, new RegExp(`Heap snapshot written to ${file.replace(/[.]/g, '\\.')}`));
  const heap = JSON.parse(fs.readFileSync(file, 'utf8'));
  t.true(Array.isArray(heap.snapshot.meta.node_fields));
  t.true(heap.snapshot.node_count > 1000);
  t.is(heap.nodes.length, heap.snapshot.node_count * heap.snapshot.meta.node_fields.length);
});

test('cgroup v2 limit from fixture files: totalRss 50% recycles the largest worker', async (t) => {
  const cgroupRoot = path.join(ROOT, 'test/fixtures/cgroup/v2');
  const cgroupLimit = Number(fs.readFileSync(path.join(cgroupRoot, 'memory.max'), 'utf8'));
  t.is(cgroupLimit, 512 * MiB, 'the fixture this test is sized for');
  // Slot 1's first worker holds 300 MiB: with ~40 MiB for each small worker the two sum (PSS) past
  // 256 MiB. Its replacement holds nothing, so exactly one total-rss recycle can happen.
  const { file, dir } = writeApp(t, `import http from 'node:http';
import fs from 'node:fs';
const mark = new URL('./held', import.meta.url);
let held = null;
if (process.env.NODESUP_SLOT === '1' && !fs.existsSync(mark)) {
  fs.writeFileSync(mark, String(process.pid));
  held = Array.from({ length: 300 }, (_, i) => new Array(128 * 1024).fill(i));
}
http.createServer((req, res) => res.end(held ? 'big\\n' : 'small\\n')).listen(Number(process.env.PORT), '127.0.0.1');
`);
  const cfg = writeConfig(t, { workers: 2, leak: false, limits: { totalRss: '50%' } });
  const run = startCli(t, [file, '-c', cfg], await env({ NODESUP_CGROUP_ROOT: cgroupRoot }));
  const start = await run.waitFor((e) => e.event === 'supervisor.start');
  t.is(start.cgroupMemoryLimit, cgroupLimit);
  t.is(start.totalRssLimit, Math.floor(cgroupLimit * 0.5));
  const ev = await run.waitFor(recycled, { what: 'the total-rss recycle' });
  const bigPid = Number(fs.readFileSync(path.join(dir, 'held'), 'utf8'));
  t.like(ev, { slot: 1, pid: bigPid, reason: 'total-rss', limit: 256 * MiB });
  t.true(ev.value > ev.limit);
  t.true(ev.memory.rss > 300 * MiB);
  await run.waitFor((e) => e.event === 'worker.exit' && e.pid === bigPid, { what: 'the big worker gone' });
  const snap = await run.waitForStatus((s) => s.slots.every((x) => x.state === 'ready' && x.last && x.last.t > Date.parse(ev.time) + 2000), { what: 'both slots serving after' });
  t.true(snap.slots.every((x) => x.last.treeRss < 150 * MiB));
  t.is(run.count(recycled), 1);
});
