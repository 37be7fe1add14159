// What holds a leak, end to end: a worker that keeps every request in a module-level array is
// replaced for its heap limit; once drained (its replacement ready, no request open) it writes a
// heap snapshot, and the worker.retainers event names the array, its file and line, and what it
// holds; the file is removed after. Where the container has no room for the snapshot, none is
// taken, the event says why with the numbers, and the recycle goes on as ever.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startCli, runCli, freePort, scratch, writeConfig } from '../helpers/cli.js';

const V2 = fileURLToPath(new URL('../fixtures/cgroup/v2', import.meta.url));
const MiB = 1024 * 1024;
const DECLARED_AT = 4; // the line of `const recentRequests` below

function writeApp(t) {
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'app.mjs'), `import http from 'node:http';

// Every request, kept "for debugging" and never trimmed.
const recentRequests = [];

http.createServer((req, res) => {
  req.receivedAt = Date.now();
  recentRequests.push(req);
  res.end('ok ' + recentRequests.length);
}).listen(Number(process.env.PORT), '127.0.0.1');
`);
  return dir;
}

// inspect --json of slot 0 once a worker serves it (a recycle may be under way when asked).
async function inspectWhenReady(run) {
  for (;;) {
    const readies = run.count((e) => e.event === 'worker.ready');
    const r = await runCli(['inspect', '0', '--json'], { env: { NODESUP_RUN_DIR: run.runDir } });
    if (r.exitCode === 0) return JSON.parse(r.stdout);
    let seen = 0;
    await run.waitFor((e) => e.event === 'worker.ready' && ++seen > readies, { what: 'a worker ready to inspect' });
  }
}

// Load until `until` resolves: keep-alive clients, bounded in time.
function loadUntil(port, until) {
  const run = autocannon({ url: `http://127.0.0.1:${port}/`, connections: 8, duration: 240 });
  until.finally(() => run.stop());
  return run;
}

test('a worker replaced for its heap limit: its snapshot, taken once drained, names the array that holds the requests', async (t) => {
  t.timeout(4 * 60_000);
  const dir = writeApp(t);
  const diagnose = path.join(dir, 'evidence');
  const cfg = writeConfig(t, { workers: 1, metrics: false, pollInterval: '500ms', limits: { heapUsed: '48mb' }, leak: false, gcBeforeRecycle: false, diagnose: { dir: diagnose } });
  const port = await freePort();
  const run = startCli(t, [path.join(dir, 'app.mjs'), '-c', cfg], { env: { PORT: String(port) }, cwd: dir });
  await run.waitFor((e) => e.event === 'worker.ready');
  const found = run.waitFor((e) => e.event === 'worker.retainers', { timeout: 200_000, what: 'the retainers of the replaced worker' });
  loadUntil(port, found);
  const recycle = await run.waitFor((e) => e.event === 'worker.recycle', { timeout: 200_000, what: 'the heap-limit recycle' });
  const ev = await found;
  t.log(ev.msg);
  t.like(ev, { slot: 0, pid: recycle.pid, reason: 'heap', taken: true, openRequests: 0 });
  t.true(ev.began >= ev.replacementReadyAt, 'the snapshot began after its replacement was ready');
  const top = ev.held[0];
  t.like(top.holder, { name: 'recentRequests', file: 'app.mjs', line: DECLARED_AT });
  t.is(top.type, 'IncomingMessage');
  t.true(top.count > 1000, String(top.count));
  // The heap snapshotted is what the drained worker retains: its garbage at the recycle (a share
  // of the 48 MB that varies with the load) is gone, the array is all in it.
  t.true(ev.heapBytes >= top.bytes && ev.snapshotBytes > 0 && ev.analysisMs > 0, JSON.stringify(ev));
  t.regex(ev.msg, /held by recentRequests \(Array of [\d,]+ IncomingMessage\) declared at app\.mjs:4/);
  t.deepEqual(fs.readdirSync(diagnose).filter((n) => n.includes(`-${ev.pid}-`)), [], 'the snapshot is removed once read');
  // The leak recycles its replacements every few seconds: no second snapshot of the slot so soon.
  t.is(run.count((e) => e.event === 'worker.retainers' && e.taken), 1);
  // inspect says it of the slot, for whichever worker serves it now (the load has stopped).
  const r = await inspectWhenReady(run);
  t.like(r.retainers, { pid: ev.pid });
  t.like(r.retainers.held[0].holder, { name: 'recentRequests', line: DECLARED_AT });
  const text = await runCli(['inspect', '0'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.regex(text.stdout, new RegExp(`held by \\(the heap snapshot of pid ${ev.pid}, the worker it replaced`));
  t.regex(text.stdout, /recentRequests \(Array of [\d,]+ IncomingMessage\) declared at app\.mjs:4, \d+ % of the growth/);
});

test('no room in the container for the snapshot: none is taken, the event says why with the numbers, the recycle goes on', async (t) => {
  t.timeout(4 * 60_000);
  const dir = writeApp(t);
  const cgroup = path.join(dir, 'cgroup');
  fs.cpSync(V2, cgroup, { recursive: true });
  fs.writeFileSync(path.join(cgroup, 'memory.max'), String(1024 * MiB));
  fs.writeFileSync(path.join(cgroup, 'memory.current'), String(1000 * MiB)); // 24 MiB left
  const cfg = writeConfig(t, { workers: 1, metrics: false, pollInterval: '500ms', limits: { heapUsed: '48mb' }, leak: false, gcBeforeRecycle: false });
  const port = await freePort();
  const run = startCli(t, [path.join(dir, 'app.mjs'), '-c', cfg], { env: { PORT: String(port), NODESUP_CGROUP_ROOT: cgroup }, cwd: dir });
  await run.waitFor((e) => e.event === 'worker.ready');
  const said = run.waitFor((e) => e.event === 'worker.retainers', { timeout: 200_000, what: 'the refusal' });
  const exited = said.then((ev) => run.waitFor((e) => e.event === 'worker.exit' && e.pid === ev.pid, { what: 'the old worker gone' }));
  loadUntil(port, exited);
  const ev = await said;
  t.log(ev.msg);
  t.like(ev, { taken: false, why: 'memory', haveBytes: 24 * MiB });
  t.true(ev.needBytes > ev.haveBytes);
  t.like(await exited, { planned: true, forced: false });
  const ready = await run.waitFor((e) => e.event === 'worker.ready' && e.pid !== ev.pid, { what: 'the replacement serving' });
  t.truthy(ready.pid);
});
