// Leak forensics at the default settings, with the real CLI: a heap leak whose retaining function
// lives in another module is named with that function, file and line (its churning neighbour is
// not); a heap leak inside a library names the package with its version and the app's own line
// that reached it (via), never nodesup's own code (its agent, its GC through node:vm, its
// samplers); and a socket + timer leak is named by its handle types, whatever the count. The
// three run at once: each waits on a confirmation's fixed spacing, not on the CPU.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, runCli, app, freePort, scratch, ROOT, writeConfig } from '../helpers/cli.js';

const MINUTES = 60_000;

test('a heap leak hidden among churn: leak.warning names cacheUser in users.js, not buildReport; inspect shows the same', async (t) => {
  t.timeout(4 * MINUTES);
  // Only what this test needs differs from the defaults: one worker, no metrics port.
  const cfg = writeConfig(t, { workers: 1, metrics: false, leak: { warmUp: '0s' } }); // no warm-up hold: this is about the sites
  const run = startCli(t, [app('sites/server.js'), '-c', cfg], { env: { PORT: String(await freePort()) } });
  const ready = await run.waitFor((e) => e.event === 'worker.ready', { what: 'ready' });
  const ev = await run.waitFor((e) => e.event === 'leak.warning' && e.kind === 'heap', { what: 'the heap leak named', timeout: 3 * MINUTES });
  t.log(`named ${Math.round((Date.parse(ev.time) - Date.parse(ready.time)) / 1000)} s after ready: ${ev.msg}`);
  t.truthy(ev.sites?.length, `sites in the event: ${JSON.stringify(ev)}`);
  // The app lives outside the supervisor's cwd here, so its path stays absolute.
  t.like(ev.sites[0], { fn: 'cacheUser', line: 4 });
  t.true(ev.sites[0].file.endsWith('apps/sites/users.js'), ev.sites[0].file);
  t.false(ev.sites.some((s) => s.fn === 'buildReport' || s.file.endsWith('report.js')), 'the churning function is not named');
  t.true(ev.growthBytesPerSec > 0 && ev.r2 > 0);
  t.true(ev.confirm.points >= 4);
  // A forced GC has its pause measured (null >= 0 is true in JS: compare with > 0, which null fails).
  if (ev.confirm.forcedGcs > 0) t.true(ev.confirm.maxPauseMs > 0, `longest pause of ${ev.confirm.forcedGcs} forced GCs: ${ev.confirm.maxPauseMs}`);
  else t.is(ev.confirm.maxPauseMs, null, 'no forced GC, no pause');

  const r = await runCli(['inspect', '0', '--json'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(r.exitCode, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  t.like(report.sites.sites[0], { fn: 'cacheUser', line: 4 });
  const text = await runCli(['inspect', '0'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.regex(text.stdout, /retained by:\n\s+cacheUser \(\S*apps\/sites\/users\.js:4\)/);

  // The profiler and its inspector session never hold a worker back: it drains like any other.
  t.is((await runCli(['recycle', '0'], { env: { NODESUP_RUN_DIR: run.runDir } })).exitCode, 0);
  const gone = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === ready.pid, { what: 'the profiled worker drained' });
  t.like(gone, { planned: true, forced: false });
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

test('sockets and timers never closed (incident 5): leak.warning of kind handles names TCPSocketWrap and Timeout', async (t) => {
  t.timeout(3 * MINUTES);
  const cfg = writeConfig(t, { workers: 1, metrics: false, leak: { action: 'warn' } });
  const run = startCli(t, [app('socket-timer-leak.js'), '-c', cfg], { env: { PORT: String(await freePort()) } });
  await run.waitFor((e) => e.event === 'worker.ready', { what: 'ready' });
  const ev = await run.waitFor((e) => e.event === 'leak.warning' && e.kind === 'handles', { what: 'the handle leak named', timeout: 2 * MINUTES });
  const types = ev.types.map((x) => x.type);
  t.true(types.includes('TCPSocketWrap') && types.includes('Timeout'), JSON.stringify(ev.types));
  t.regex(ev.summary, /TCPSocketWrap \+\d+(\.\d)?\/s/);
  // Named long before the old fixed threshold of 1,000 handles.
  t.true(ev.types.find((x) => x.type === 'TCPSocketWrap').count < 1000, `named at ${JSON.stringify(ev.types)}`);
  const status = await run.status();
  t.is(status.slots[0].leak.kind, 'handles');
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

// The package is written at test time into the app's node_modules, as npm would lay it out.
function writeLibraryApp(t) {
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const pkg = path.join(dir, 'node_modules/some-store');
  fs.mkdirSync(path.join(pkg, 'lib'), { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'some-store', version: '2.3.1', main: 'lib/memory.js' }));
  fs.writeFileSync(path.join(pkg, 'lib/memory.js'), `'use strict';
// A session store that never expires anything.
class MemoryStore {
  constructor() { this.sessions = new Map(); }
  set(id, data) {
    this.sessions.set(id, { data: JSON.parse(JSON.stringify(data)), at: Date.now() });
  }
}
module.exports = { MemoryStore };
`);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', type: 'commonjs' }));
  fs.writeFileSync(path.join(dir, 'server.js'), `'use strict';
const http = require('node:http');
const { MemoryStore } = require('some-store');
const store = new MemoryStore();
const perMs = (6 * 1024 * 1024) / 60_000;
let owed = 0;
let last = Date.now();
let id = 0;
function saveSession() {
  store.set(id++, { user: id, cart: new Array(100).fill(id + 0.5) });
}
setInterval(() => {
  owed += perMs * (Date.now() - last);
  last = Date.now();
  for (; owed >= 1024; owed -= 1024) saveSession();
}, 100);
http.createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');
`);
  return dir;
}

test('a leak inside node_modules names some-store@2.3.1 and server.js, never nodesup itself', async (t) => {
  t.timeout(5 * MINUTES);
  const dir = writeLibraryApp(t);
  const cfg = writeConfig(t, { workers: 1, metrics: false, leak: { warmUp: '0s' } }); // no warm-up hold: this is about the sites
  const run = startCli(t, [path.join(dir, 'server.js'), '-c', cfg], { cwd: dir, env: { PORT: String(await freePort()) } });
  const ev = await run.waitFor((e) => e.event === 'leak.warning' && e.kind === 'heap', { timeout: 240_000, what: 'the heap leak named' });
  t.log(ev.msg);
  t.like(ev.sites[0], { file: 'node_modules/some-store/lib/memory.js', package: 'some-store@2.3.1', via: { file: 'server.js', fn: 'saveSession', line: 9 } });
  t.regex(ev.msg, /some-store@2\.3\.1 \S+, reached from server\.js:9/);
  for (const s of ev.sites) {
    t.false(s.file.startsWith(path.join(ROOT, 'src')) || s.file.startsWith('node:'), `nodesup's or node's own: ${JSON.stringify(s)}`);
  }
});
