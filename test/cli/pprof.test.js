// Leak evidence in the fleet's formats, end to end with the real CLI: a leaking app from the bench
// corpus gets a pprof profile in diagnose.dir when its leak is named, whose top entry is the leaking
// function and file, as pprof-format and Go's own pprof read it; the metrics port serves it where a
// profiler's scraper looks; and `inspect --profile` writes the same of the live worker.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, runCli, freePort, scratch, writeConfig, ROOT } from '../helpers/cli.js';
import { decodePprof, goPprof, topRows } from '../helpers/pprof.js';
import { hasTool } from '../helpers/tools.js';

const MINUTES = 60_000;
// users.js keeps every user it sees (cacheUser); report.js churns garbage beside it.
const LEAKY = path.join(ROOT, 'bench/corpus/hidden-leak/server.js');
const USERS = path.join(ROOT, 'bench/corpus/hidden-leak/users.js');
const APP = { LEAK_MB_PER_MIN: '40', CHURN_MB_PER_SEC: '1' };

// Go's pprof where installed; under CI=true a missing go fails, elsewhere it is skipped saying why.
function goTop(t, file, ...args) {
  if (!hasTool('go')) {
    if (process.env.CI === 'true') t.fail('go is not on PATH: apt-get install golang-go');
    else t.log('go tool pprof: skipped, go not on PATH (apt-get install golang-go)');
    return null;
  }
  const run = goPprof(file, '-top', ...args);
  t.is(run.status, 0, `${run.stderr}${run.error ?? ''}`);
  return run.stdout;
}

test('a named heap leak leaves a pprof profile whose top is the leaking function and file; served on /debug/pprof/heap; inspect --profile writes the live one', async (t) => {
  t.timeout(5 * MINUTES);
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const diag = path.join(dir, 'diagnose');
  const [mport, appPort] = await Promise.all([freePort(), freePort()]);
  const cfg = writeConfig(t, {
    workers: 1, pollInterval: '250ms', metrics: `127.0.0.1:${mport}`, diagnose: { dir: diag },
    leak: { window: '8s', minGrowth: '1mb/min', action: 'warn', warmUp: '0s' },
  });
  const run = startCli(t, [LEAKY, '-c', cfg], { env: { PORT: String(appPort), ...APP } });
  const ready = await run.waitFor((e) => e.event === 'worker.ready', { what: 'ready' });

  // Before any leak: nothing to serve, said in one line.
  const none = await run.fetch(`http://127.0.0.1:${mport}/debug/pprof/heap`);
  t.is(none.status, 404);
  t.regex(await none.text(), /^no heap profile yet: [^\n]+\n$/);

  // The leak named with its sites (the confirmation points), and the profile written for it.
  const named = await run.waitFor((e) => e.event === 'leak.warning' && e.sites?.length, { what: 'the leak named with its sites', timeout: 4 * MINUTES });
  t.is(named.sites[0].fn, 'cacheUser');
  const line = await run.waitFor((e) => e.profile?.file && Date.parse(e.time) >= Date.parse(named.time), { what: 'its profile written' });
  t.like(line, { slot: 0, pid: ready.pid, profile: { kind: 'heap', reason: 'leak', inuse: true } });
  t.is(path.dirname(line.profile.file), diag);
  t.is(fs.statSync(line.profile.file).mode & 0o777, 0o600);

  const p = decodePprof(fs.readFileSync(line.profile.file));
  t.deepEqual(p.types, ['inuse_space', 'growth_rate']);
  const [top] = p.samples;
  t.like(top.stack[0], { fn: 'cacheUser', file: USERS });
  t.like(top.labels, { kind: 'heap', reason: 'leak', slot: '0' });
  t.true(top.values.inuse_space > 1024 * 1024, `cacheUser holds ${top.values.inuse_space} B`);
  t.true(top.values.growth_rate > 0);
  t.false(p.samples.some((s) => /nodesup\/src|\/src\/worker\//.test(s.stack[0].file)), 'never nodesup\'s own code');

  // Go's pprof, the reader the fleet's tools share, agrees.
  const stdout = goTop(t, line.profile.file, '-lines');
  if (stdout !== null) {
    t.log(stdout.trim());
    const [first] = topRows(stdout);
    t.true(first.name.startsWith(`cacheUser ${USERS}:`), first.name);
  }

  // The metrics port serves the newest, as Go programs do, for a profiler's scraper.
  const res = await run.fetch(`http://127.0.0.1:${mport}/debug/pprof/heap`);
  t.is(res.status, 200);
  const served = decodePprof(Buffer.from(await res.arrayBuffer()));
  t.is(served.samples[0].stack[0].fn, 'cacheUser');

  // inspect --profile, while the worker's profiler still runs (it stops a minute after the leak is confirmed).
  const cli = (args) => runCli(args, { env: { NODESUP_RUN_DIR: run.runDir } });
  const out = path.join(dir, 'live.pb.gz');
  const r = await cli(['inspect', '0', '--profile', out]);
  t.is(r.exitCode, 0, r.stderr);
  t.regex(r.stdout, new RegExp(`Profile \\(pprof, \\d+ sites?\\) written to ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
  const live = decodePprof(fs.readFileSync(out));
  t.like(live.samples[0], { stack: [{ fn: 'cacheUser', file: USERS }], labels: { reason: 'inspect', slot: '0', kind: 'heap' } });
  t.is(fs.statSync(out).mode & 0o777, 0o600);
  const chrome = path.join(dir, 'live.heapprofile');
  const j = await cli(['inspect', '0', '--profile', chrome, '--json']);
  t.is(j.exitCode, 0, j.stderr);
  t.like(JSON.parse(j.stdout).profile, { file: chrome, format: 'heapprofile', inuse: true });
  const doc = JSON.parse(fs.readFileSync(chrome, 'utf8'));
  t.is(doc.head.callFrame.functionName, '(root)');
  t.true(doc.head.children.some((c) => c.callFrame.functionName === 'cacheUser' && c.callFrame.url === `file://${USERS}` && c.selfSize > 0));
});

test('inspect --profile of a worker with no sampler running: one line saying why, exit 1, nothing written', async (t) => {
  const cfg = writeConfig(t, { workers: 1, pollInterval: '250ms', metrics: false });
  const run = startCli(t, [path.join(ROOT, 'bench/corpus/steady.js'), '-c', cfg], { env: { PORT: String(await freePort()) } });
  await run.waitFor((e) => e.event === 'worker.ready', { what: 'ready' });
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, 'x.pb.gz');
  const r = await runCli(['inspect', '0', '--profile', out], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(r.exitCode, 1);
  t.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  t.regex(r.stderr, /slot 0 \(pid \d+\) has no sampled sites to write: its heap profiler runs only while a leak is suspected or the worker fills fast; nothing was written to .*x\.pb\.gz\. Try again while `nodesup status` shows a leak, or use --heap-snapshot/);
  t.false(fs.existsSync(out));
});

test('a memory recycle leaves a profile too: reason rss, the site the worker retained at the top', async (t) => {
  t.timeout(4 * MINUTES);
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const diag = path.join(dir, 'diagnose');
  // heap-leak-fast keeps every entry of a memo Map, filled from a timer's callback (line 13).
  const cfg = writeConfig(t, { workers: 1, metrics: false, limits: { rss: '160mb' }, diagnose: { dir: diag } });
  const run = startCli(t, [path.join(ROOT, 'bench/corpus/heap-leak-fast.js'), '-c', cfg], { env: { PORT: String(await freePort()), LEAK_MB_PER_MIN: '120' } });
  const recycle = await run.waitFor((e) => e.event === 'worker.recycle', { what: 'the rss recycle', timeout: 3 * MINUTES });
  t.is(recycle.reason, 'rss');
  const line = await run.waitFor((e) => e.profile?.reason === 'rss' && e.pid === recycle.pid, { what: 'its profile written' });
  t.like(line.profile, { kind: 'heap', reason: 'rss' });
  const p = decodePprof(fs.readFileSync(line.profile.file));
  const [top] = p.samples;
  t.like(top.stack[0], { file: path.join(ROOT, 'bench/corpus/heap-leak-fast.js'), line: 13 });
  t.like(top.labels, { kind: 'heap', reason: 'rss', slot: '0' });
  t.true((top.values.inuse_space ?? top.values.growth_rate) > 0, JSON.stringify(top.values));
  const stdout = goTop(t, line.profile.file, '-lines');
  if (stdout !== null) {
    t.log(stdout.trim());
    t.regex(topRows(stdout)[0].name, /heap-leak-fast\.js:13$/);
  }
});
