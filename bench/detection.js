// Leak-detection benchmark: every app of bench/corpus runs at once under the real CLI (its own
// run dir, port and config, one worker, a light request load), and the NDJSON logs say whether,
// why, when and where a leak was named. Prints a markdown table; --write puts it into bench/RESULTS.md.
//
//   node bench/detection.js [--duration 900] [--only steady,hidden-leak] [--window 5m]
//                           [--min-growth 1mb/min] [--poll 1s] [--rps 5] [--write] [--results FILE]
//                           [--series DIR] [--section NAME] [--quick]   (--quick: 380 s)
//
// At the default settings unless --window / --min-growth are given: the config sets only the
// name, one worker and no metrics port. How it is judged, on the supervisor's own log clock from
// the first worker.ready (or from when the app starts leaking, for heap-leak-late):
// - a heap leak must be named (leak.warning or a leak recycle, kind heap) within 120 s, the issue's
//   target; its top site must be the function that retains, where the app has one;
// - a handles leak within 60 s, with the types that grow;
// - other kinds (external, native, children) by the window verdict: ready + (warmup + 1) × window,
//   native also after the settle time, plus 60 s;
// - fd-leak passes on a `fd-growth` or `handles` advice or a handles/leak verdict, in the same time;
// - a healthy app passes when nothing recycles it and no leak.warning names it for the whole run.
// False verdicts: leak verdicts on a healthy app, or of a kind not expected, over the whole run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseDuration, parseRate } from '../src/units.js';
import { request } from '../src/control/client.js';
import { LEAK_THRESHOLDS } from '../src/core/leak-detector.js';
import { freePort } from './lib/spawn.js';
import { writeSection } from './lib/results.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CORPUS = path.join(ROOT, 'bench/corpus');
const RESULTS = path.join(ROOT, 'bench/RESULTS.md');
const GRACE_S = 60;

/** What each corpus app is, and what a correct supervisor does about it. */
export const EXPECTED = {
  steady: { healthy: true },
  sawtooth: { healthy: true },
  burst: { healthy: true },
  step: { healthy: true },
  'lru-cap': { healthy: true },
  'warm-up': { healthy: true },
  'hidden-healthy': { healthy: true },
  'listener-healthy': { healthy: true },
  'timer-healthy': { healthy: true },
  'socket-timer-healthy': { healthy: true },
  'heap-leak-fast': { kind: 'heap', site: /heap-leak-fast\.js/ },
  'heap-leak-slow': { kind: 'heap', site: /heap-leak-slow\.js/ },
  'heap-leak-late': { kind: 'heap', site: /heap-leak-late\.js/, startsAtS: 90 },
  'hidden-leak': { kind: 'heap', site: /^cacheUser .*hidden-leak\/users\.js/ },
  'listener-leak': { kind: 'heap', site: /^onRequest .*listener-leak\.js/ },
  // 12 timers a second, each holding 4 KiB: a handles leak and a heap leak at once, both true.
  'timer-leak': { kind: ['handles', 'heap'], site: /^onRequest .*timer-leak\.js/ },
  'socket-timer-leak': { kind: 'handles', types: ['TCPSocketWrap', 'Timeout'] },
  'buffer-leak': { kind: 'external' },
  'buffer-churn-leak': { kind: 'external', site: /^holdUpload .*buffer-churn-leak\.js/ },
  'buffer-churn': { healthy: true },
  'native-leak': { kind: 'native' },
  'child-leak': { kind: 'children' },
  'fd-leak': { advice: ['fd-growth', 'handles'], kind: 'handles' },
  // Unref'd idle keep-alive sockets: only the fds climb, named by what they are (TCP to the upstream).
  'agent-per-request': { kind: 'handles', types: ['fd'] },
};
const kinds = (exp) => [exp.kind ?? []].flat();
const scriptOf = (name) => (fs.existsSync(path.join(CORPUS, name, 'server.js')) ? path.join(CORPUS, name, 'server.js') : path.join(CORPUS, `${name}.js`));
// The issue's targets at the default settings, from when the leak starts.
const TARGET_S = { heap: 120, external: 120, handles: 60 };

const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string' },
    quick: { type: 'boolean', default: false },
    results: { type: 'string', default: RESULTS },
    section: { type: 'string', default: 'detection' }, // the RESULTS.md section written: a second setting gets its own
    only: { type: 'string' },
    window: { type: 'string' }, // default: the config's own (5m)
    'min-growth': { type: 'string' }, // default: the config's own (1mb/min)
    poll: { type: 'string', default: '1s' },
    rps: { type: 'string', default: '5' },
    write: { type: 'boolean', default: false },
    series: { type: 'string' }, // a directory: every poll's sample of each app is saved there, for diagnosis
  },
});

const durationS = Number(opt.duration ?? (opt.quick ? 380 : 900));
const windowMs = parseDuration(opt.window ?? '5m');
const pollMs = parseDuration(opt.poll);
if (!(durationS > 0) || !windowMs || !pollMs || (opt['min-growth'] && parseRate(opt['min-growth']) === null)) {
  console.error('usage: node bench/detection.js [--duration 900] [--only a,b] [--window 5m] [--min-growth 1mb/min] [--poll 1s] [--rps 5] [--write] [--results FILE] [--series DIR] [--quick]');
  process.exit(2);
}
const defaults = !opt.window && !opt['min-growth'];
const fillMs = (LEAK_THRESHOLDS.warmup + 1) * windowMs;
const names = opt.only ? opt.only.split(',') : Object.keys(EXPECTED);
for (const n of names) {
  if (!EXPECTED[n] || !fs.existsSync(scriptOf(n))) {
    console.error(`unknown app ${n}; expected one of ${Object.keys(EXPECTED).join(', ')}`);
    process.exit(2);
  }
}

/** Run one app under nodesup for durationS; resolve with its parsed events and load counts. */
async function runApp(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `nodesup-bench-${name}-`));
  const config = path.join(dir, 'bench.config.mjs');
  fs.writeFileSync(config, `export default ${JSON.stringify({
    name, workers: 1, pollInterval: opt.poll, metrics: false,
    ...(defaults ? {} : { leak: { ...(opt.window ? { window: opt.window } : {}), ...(opt['min-growth'] ? { minGrowth: opt['min-growth'] } : {}) } }),
  })};\n`);
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/nodesup.js'), 'start', scriptOf(name), '-c', config], {
    cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODESUP_RUN_DIR: dir, PORT: String(port) },
  });
  const events = [];
  let load = null;
  let buf = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buf += chunk;
    for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) {
      let ev;
      try { ev = JSON.parse(buf.slice(0, i)); } catch { continue; /* the app's own output */ }
      events.push(ev);
      // The load starts once the app serves: requests refused during start-up are not a drop.
      if (ev.event === 'worker.ready' && !load) load = startLoad(port, Number(opt.rps));
    }
  });
  child.stderr.on('data', (c) => { stderr = (stderr + c).slice(-2000); });
  const exited = new Promise((r) => child.on('exit', (code, signal) => r({ code, signal })));
  const series = opt.series ? recordSeries(dir, name) : null;
  const timer = new Promise((r) => setTimeout(r, durationS * 1000));
  const early = await Promise.race([timer.then(() => null), exited]);
  load?.stop();
  if (series) {
    series.stop();
    fs.mkdirSync(opt.series, { recursive: true });
    fs.writeFileSync(path.join(opt.series, `${name}.json`), `[\n${series.samples.map((x) => JSON.stringify(x)).join(',\n')}\n]\n`);
  }
  if (!early) {
    child.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return { name, events, load: load?.counts ?? { ok: 0, failed: 0 }, early, stderr };
}

// Every poll's sample of slot 0 (pid included, so a recycle shows), read from the control socket.
function recordSeries(dir, name) {
  const samples = [];
  const timer = setInterval(async () => {
    const last = (await request({ dir, name, op: 'status' }).catch(() => null))?.slots?.[0]?.last;
    if (last && !(samples.length && last.t <= samples.at(-1).t)) samples.push(last);
  }, pollMs / 2);
  return { samples, stop: () => clearInterval(timer) };
}

// A light keep-alive request load, so workers serve traffic (and drains have something to drain).
// Free sockets are dropped after 4 s idle, under Node's 5 s server keepAliveTimeout, as
// agentkeepalive does by default: otherwise a request sent on a socket the server is closing for
// idleness fails, with or without a supervisor. Every failure is kept with its time and cause.
function startLoad(port, rps) {
  const counts = { ok: 0, failed: 0, failures: [] };
  if (!(rps > 0)) return { counts, stop() {} };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4, timeout: 4000 });
  const fail = (why) => { counts.failed++; counts.failures.push({ time: new Date().toISOString(), why }); };
  const timer = setInterval(() => {
    http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', () => { if (res.statusCode === 200) counts.ok++; else fail(`HTTP ${res.statusCode}`); });
    }).on('error', (err) => fail(err.code ?? err.message));
  }, 1000 / rps);
  return { counts, stop() { clearInterval(timer); agent.destroy(); } };
}

/**
 * When the detector may first name a leak of this kind, from readiness: one warm-up and one whole
 * window; native memory (the residual) also waits for the worker to settle.
 */
export function fullAtMs(kind, w = windowMs) {
  const full = (LEAK_THRESHOLDS.warmup + 1) * w;
  return kind === 'native' ? Math.max(full, LEAK_THRESHOLDS.settleMs) : full;
}

/** The deadline of an expected leak, seconds from readiness. */
export function deadlineOf(exp, w = windowMs, graceS = GRACE_S) {
  const starts = exp.startsAtS ?? 0;
  const targets = kinds(exp).map((k) => (defaults && TARGET_S[k] ? starts + TARGET_S[k] : fullAtMs(k, w) / 1000 + graceS));
  return Math.min(...targets);
}

const siteText = (s) => (s ? `${s.fn} ${s.file}:${s.line}` : null);

/** The verdict for one run: what happened, when and where, and PASS/FAIL against EXPECTED. */
export function judge(run, { windowMs: w = windowMs, graceS = GRACE_S } = {}) {
  const exp = EXPECTED[run.name];
  const ms = (e) => Date.parse(e.time);
  const ready = run.events.find((e) => e.event === 'worker.ready');
  const recycles = run.events.filter((e) => e.event === 'worker.recycle');
  const verdicts = run.events.filter((e) => e.event === 'leak.warning' || (e.event === 'worker.recycle' && e.reason === 'leak'));
  const advice = run.events.filter((e) => e.event === 'worker.advice' && exp.advice?.includes(e.code));
  const first = [...recycles, ...verdicts, ...advice].sort((a, b) => ms(a) - ms(b))[0] ?? null;
  const deadlineS = exp.healthy ? null : deadlineOf(exp, w, graceS);
  const atS = first && ready ? (ms(first) - ms(ready)) / 1000 : null;
  const falseVerdicts = exp.healthy ? verdicts.length : verdicts.filter((e) => !kinds(exp).includes(e.kind)).length;
  const site = first?.sites?.[0] ?? null;
  const row = {
    app: run.name,
    expected: exp.healthy ? 'healthy' : kinds(exp).length ? `leak (${kinds(exp).join(' or ')})` : `${exp.advice[0]} advice`,
    recycles: recycles.length,
    reason: first ? (first.event === 'worker.advice' ? `advice ${first.code}` : first.event === 'leak.warning' ? 'leak.warning' : first.reason ?? first.event) : '-',
    kind: first?.kind ?? '-',
    atS,
    deadlineS,
    site: first?.kind === 'handles' ? first.summary ?? '-' : siteText(site) ?? '-',
    siteRight: exp.site && (first?.kind === 'heap' || first?.kind === 'external') ? exp.site.test(siteText(site) ?? '') : exp.types && first?.kind === 'handles'
      ? exp.types.every((t) => first.types?.some((x) => x.type === t)) : null,
    falseVerdicts,
    requests: `${run.load.ok}/${run.load.ok + run.load.failed}`,
    pass: false,
    why: '',
  };
  if (!ready) row.why = 'never ready';
  else if (run.early) row.why = `nodesup exited early (${run.early.signal ?? run.early.code})`;
  else if (exp.healthy) {
    row.pass = recycles.length === 0 && verdicts.length === 0;
    if (!row.pass) row.why = `named: ${first.reason ?? first.event}${first.kind ? ` (${first.kind})` : ''}`;
  } else if (!first) row.why = 'not named';
  else if (atS > deadlineS) row.why = `late: ${atS.toFixed(0)} s > ${deadlineS} s`;
  else if (kinds(exp).length && !(exp.advice && first.event === 'worker.advice')) {
    row.pass = kinds(exp).includes(first.kind) && row.siteRight !== false;
    if (!row.pass) row.why = row.siteRight === false ? `wrong site: ${row.site}` : `wrong attribution: ${first.reason ?? first.event}/${first.kind ?? '-'}`;
  } else {
    row.pass = first.event === 'worker.advice' || first.reason === 'leak';
    if (!row.pass) row.why = `wrong reason: ${first.reason}`;
  }
  return row;
}

/** Each failed request of a run, placed against the worker event nearest to it in time. */
export function describeFailures(run) {
  const marks = run.events.filter((e) => ['worker.recycle', 'worker.spawn', 'worker.ready', 'worker.exit'].includes(e.event));
  return (run.load.failures ?? []).map((f) => {
    const at = Date.parse(f.time);
    const near = marks.reduce((best, e) => (!best || Math.abs(Date.parse(e.time) - at) < Math.abs(Date.parse(best.time) - at) ? e : best), null);
    const d = near ? (at - Date.parse(near.time)) / 1000 : 0;
    const rel = near ? `, ${Math.abs(d).toFixed(2)} s ${d < 0 ? 'before' : 'after'} ${near.event} of pid ${near.pid}${near.forced ? ' (forced)' : ''}` : '';
    return `${run.name}: ${f.why} at ${f.time}${rel}`;
  });
}

/** The markdown section: conditions, how it is measured, and the table. */
export function renderSection(rows, meta) {
  const fmt = (x) => (x === null ? '-' : x.toFixed(0));
  const yes = (b) => (b === null ? '-' : b ? 'yes' : 'no');
  const settings = defaults ? 'the default settings (leak.window 5m, minGrowth 1mb/min, action recycle, no limits)'
    : `leak.window ${opt.window ?? '5m'}, minGrowth ${opt['min-growth'] ?? '1mb/min'}`;
  const lines = [
    opt.section === 'detection' ? '## Leak detection' : `## Leak detection, ${opt.section}`,
    '',
    `Command: \`${meta.command}\` at commit ${meta.commit}`,
    '',
    `Run ${meta.date} on ${meta.machine}. Each app ran ${durationS} s under its own supervisor (1 worker,`,
    `pollInterval ${opt.poll}, ${settings}, ${opt.rps} req/s of keep-alive load), all ${rows.length} at once.`,
    'Named at: from the first worker.ready to the first leak.warning or leak recycle (fd-leak: also its fd/handles',
    'advice), on the supervisor\'s log clock. Deadlines: a heap leak 120 s after it starts (heap-leak-late starts',
    `at 90 s), handles 60 s; other kinds by the window (ready + (warmup ${LEAK_THRESHOLDS.warmup} + 1) × window + ${GRACE_S} s; native also`,
    `after ${LEAK_THRESHOLDS.settleMs / 60_000} min of age). Site: the top retaining site of a heap verdict, or the growing types of a handles one.`,
    'False verdicts: leak verdicts on a healthy app, or of a kind not expected, over the whole run.',
    '',
    '| app | expected | named at (s) | deadline (s) | kind | site | site right | false verdicts | recycles | requests ok | result |',
    '|---|---|---:|---:|---|---|---|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.app} | ${r.expected} | ${fmt(r.atS)} | ${fmt(r.deadlineS)} | ${r.kind} | ${r.site} | ${yes(r.siteRight)} | ${r.falseVerdicts} | ${r.recycles} | ${r.requests} | ${r.pass ? 'PASS' : `FAIL: ${r.why}`} |`),
    '',
    `${rows.filter((r) => r.pass).length}/${rows.length} PASS. ${meta.notes ?? ''}`.trim(),
    '',
    meta.failures?.length ? `Failed requests, each with the nearest worker event:\n${meta.failures.map((f) => `- ${f}`).join('\n')}` : 'Failed requests: none.',
  ];
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const load0 = os.loadavg()[0];
  console.error(`running ${names.length} apps for ${durationS} s: ${names.join(', ')}`);
  const runs = await Promise.all(names.map(runApp));
  const rows = runs.map((r) => judge(r));
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const section = renderSection(rows, {
    command: `node bench/detection.js${process.argv.slice(2).filter((a) => a !== '--write').map((a) => ` ${a}`).join('')}`,
    commit: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() || '?',
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine,
    notes: `Load average ${load0.toFixed(2)} at the start, ${os.loadavg()[0].toFixed(2)} at the end.`,
    failures: runs.flatMap(describeFailures),
  });
  process.stdout.write(`${section}\n`);
  for (const r of runs) if (r.early) process.stderr.write(`${r.name}: ${r.stderr}\n`);
  for (const [i, row] of rows.entries()) {
    if (row.pass) continue;
    const firstBad = runs[i].events.find((e) => e.event === 'worker.recycle' || e.event === 'leak.warning');
    if (firstBad) process.stderr.write(`${row.app}: ${JSON.stringify(firstBad)}\n`);
  }
  if (opt.write) writeSection(opt.results, opt.section, section);
  process.exitCode = rows.every((r) => r.pass) ? 0 : 1;
}
