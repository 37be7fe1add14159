// `nodesup start` validates the config, then replaces itself (process.execve) with the lean
// primary under the same pid: what the user started is the primary for signals, the run dir,
// `nodesup status` and the exit code. Where Node has no process.execve the primary runs in the
// CLI's process, as before, and says so once in the log.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, runCli, app, freePort, writeConfig } from '../helpers/cli.js';
import { leanFlags, SMALL_FLEET } from '../../src/cli/lean-launch.js';

const MiB = 1024 * 1024;
const HAS_EXECVE = typeof process.execve === 'function';
const BASE = { script: app('http.js'), workers: 2, pollInterval: '250ms', metrics: false, limits: { rss: '1gb' }, log: { level: 'debug' } };
const execveTest = HAS_EXECVE ? test : test.skip;
const fallbackTest = HAS_EXECVE ? test.skip : test;
// Node 24 and later build V8 with Maglev on; Node 22 ships it off.
const MAGLEV = Number(process.versions.node.split('.')[0]) >= 24;
// A skipped test says why in its title.
const why = HAS_EXECVE ? ` (skipped: Node ${process.versions.node} has process.execve; the fallback is for Node 20 and 22 before 22.15)` : '';
const whyNot = HAS_EXECVE ? '' : ` (skipped: Node ${process.versions.node} has no process.execve)`;

// MALLOC_ARENA_MAX unset (some images set it), so the lean primary's own setting is seen.
async function started(t, config, env = { MALLOC_ARENA_MAX: undefined }) {
  const file = writeConfig(t, config);
  const port = await freePort();
  const run = startCli(t, ['-c', file], { env: { PORT: String(port), ...env } });
  for (const slot of [0, 1]) await run.waitFor((e) => e.event === 'worker.ready' && e.slot === slot, { what: `slot ${slot} ready` });
  return { run, file };
}

const rewrite = (file, config) => fs.writeFileSync(file, `export default ${JSON.stringify(config)};\n`);
const cmdline = (pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
// The environment a process started with (an unsetenv after start does not change it).
const environ = (pid) => fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');

// The same checks on both paths: the pid, status, a SIGHUP that applies, one that is refused, SIGTERM → 0.
async function samePidThroughout(t, run, file) {
  const pid = run.child.pid;
  const start = run.events.find((e) => e.event === 'supervisor.start');
  t.is(start.primaryPid, pid, 'the pid the user started is the primary');
  const snap = await run.status();
  t.is(snap.pid, pid, 'status (through the run dir\'s socket) answers from that pid');
  t.true(fs.readdirSync(run.runDir).some((f) => f.endsWith('.sock')), 'the control socket is in the run dir');

  // Evaluated as at start: where WebAssembly is (the lean primary's V8 flags turn it off).
  fs.writeFileSync(file, `export default { ...${JSON.stringify(BASE)}, limits: { rss: typeof WebAssembly === 'object' ? '900mb' : '800mb' } };\n`);
  process.kill(pid, 'SIGHUP');
  const reload = await run.waitFor((e) => e.event === 'config.reload', { what: 'config.reload' });
  t.deepEqual(reload.changed, ['limits']);
  t.is((await run.status()).config.limits.rss, 900 * MiB, 'the re-read config is the running one');

  rewrite(file, { ...BASE, workers: 'lots' });
  process.kill(pid, 'SIGHUP');
  const bad = await run.waitFor((e) => e.event === 'config.invalid', { what: 'config.invalid' });
  t.true(bad.error.includes('workers'), bad.error);
  t.false(bad.error.includes('\n'), 'one line');

  process.kill(pid, 'SIGTERM');
  const { exitCode, stderr } = await run.exited;
  t.is(exitCode, 0);
  t.true(run.events.some((e) => e.event === 'supervisor.stop'));
  t.false(/warning/i.test(stderr), `nothing on stderr: ${stderr}`);
}

execveTest(`the lean primary keeps the pid the user started: status, the run dir, SIGHUP reloads, SIGTERM exits 0${whyNot}`, async (t) => {
  const { run, file } = await started(t, BASE);
  const args = cmdline(run.child.pid);
  t.true(args.some((a) => a.endsWith(path.join('src', 'cli', 'lean-primary.js'))), `the process was replaced: ${args.join(' ')}`);
  t.true(args.includes('--max-semi-space-size=1') && args.includes('--v8-pool-size=1'), 'with the lean primary\'s V8 flags');
  t.false(args.includes('--lite-mode'), 'round-robin: the primary keeps the JIT for the connections it routes');
  t.is(args.includes('--no-turbofan'), MAGLEV, 'Maglev alone, where Node has it on');
  const lean = run.events.filter((e) => e.primary === 'lean');
  t.is(lean.length, 1, 'said once, at debug');
  t.is(lean[0].level, 20);
  t.is(run.events.filter((e) => e.primary === 'full').length, 0);
  await samePidThroughout(t, run, file);
});

execveTest(`the lean primary's workers do not take its V8 flags, its handover or its malloc arena setting${whyNot}`, async (t) => {
  const { run } = await started(t, BASE);
  t.true(environ(run.child.pid).includes('MALLOC_ARENA_MAX=1'), 'the lean primary runs with one malloc arena');
  const workers = run.events.filter((e) => e.event === 'worker.ready').map((e) => e.pid);
  for (const pid of workers) {
    const args = cmdline(pid);
    t.false(args.some((a) => /^--(lite-mode|no-turbofan|max-semi-space-size|v8-pool-size)/.test(a)), args.join(' '));
    const env = environ(pid);
    t.false(env.some((v) => v.startsWith('NODESUP_LEAN_START=')), 'no handover in the environment');
    t.false(env.some((v) => v.startsWith('MALLOC_ARENA_MAX=')), 'the workers keep glibc\'s default arenas');
  }
  process.kill(run.child.pid, 'SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

execveTest(`a MALLOC_ARENA_MAX the user set is the primary's and the workers' alike${whyNot}`, async (t) => {
  const { run } = await started(t, BASE, { MALLOC_ARENA_MAX: '4' });
  const workers = run.events.filter((e) => e.event === 'worker.ready').map((e) => e.pid);
  for (const pid of [run.child.pid, ...workers]) {
    t.deepEqual(environ(pid).filter((v) => v.startsWith('MALLOC_ARENA_MAX=')), ['MALLOC_ARENA_MAX=4'], `pid ${pid}`);
  }
  process.kill(run.child.pid, 'SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

fallbackTest(`without process.execve the primary runs in the CLI's process and says so once, at info${why}`, async (t) => {
  const { run, file } = await started(t, BASE);
  t.true(cmdline(run.child.pid).some((a) => a.endsWith(path.join('bin', 'nodesup.js'))));
  const full = run.events.filter((e) => e.primary === 'full');
  t.is(full.length, 1, 'said once');
  t.is(full[0].level, 30);
  t.true(full[0].msg.includes('process.execve'), full[0].msg);
  await samePidThroughout(t, run, file);
});

test('a bad config on start exits 2 with its one-line error before anything starts', async (t) => {
  const file = writeConfig(t, { ...BASE, workers: 'lots' });
  const r = await runCli(['start', '-c', file]);
  t.is(r.exitCode, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  t.is(lines.length, 1, r.stderr);
  t.regex(lines[0], /^nodesup: .*workers: expected a positive integer/);
  t.is(r.stdout, '', 'nothing started: no event was logged');
});

test('the lean flags: a small young generation for a small fleet, lite mode where the primary routes no connections and Maglev without TurboFan where it does, never a flag the user set', (t) => {
  const small = leanFlags([], { workers: SMALL_FLEET, balance: 'reuse-port' });
  t.true(small.includes('--lite-mode') && small.includes('--max-semi-space-size=1') && small.includes('--v8-pool-size=1'), small.join(' '));
  for (const balance of ['round-robin', 'sticky']) {
    t.deepEqual(leanFlags([], { workers: 2, balance }), [...(MAGLEV ? ['--no-turbofan'] : []), '--max-semi-space-size=1', '--v8-pool-size=1'], `${balance}: cluster's JS runs per connection, compiled (by Maglev alone where Node has it on)`);
    t.deepEqual(leanFlags(['--turbofan'], { workers: 2, balance }), ['--max-semi-space-size=1', '--v8-pool-size=1'], `${balance}: the user's --turbofan is kept`);
    t.deepEqual(leanFlags(['--no-maglev'], { workers: 2, balance }), ['--max-semi-space-size=1', '--v8-pool-size=1'], `${balance}: without Maglev, TurboFan stays`);
  }
  t.deepEqual(leanFlags([], { workers: SMALL_FLEET + 1, balance: 'reuse-port' }), ['--v8-pool-size=1'], 'a larger fleet keeps the JIT: its tick does more');
  t.deepEqual(leanFlags([], { workers: SMALL_FLEET + 1, balance: 'round-robin' }), ['--v8-pool-size=1'], 'and TurboFan');
  t.false(leanFlags(['--no-lite-mode', '--max_semi_space_size=8'], { workers: 2, balance: 'reuse-port' }).some((f) => f.startsWith('--lite-mode') || f.startsWith('--max-semi-space-size')));
});
