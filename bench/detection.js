// Leak-detection benchmark: every app of bench/corpus runs at once under the real CLI (its own
// run dir, port and config, one worker, a light request load), and the NDJSON logs say whether,
// why, when and where a leak was named. Prints a markdown table; --write puts it into bench/RESULTS.md.
//
//   node bench/detection.js [--duration 900] [--only steady,hidden-leak] [--window 5m]
//                           [--min-growth 1mb/min] [--poll 1s] [--rps 5] [--write] [--results FILE]
//                           [--series DIR] [--section NAME] [--node PATH] [--quick]   (--quick: 380 s)
//
// --node PATH: nodesup (bin/nodesup.js), and so its workers, run under that node binary (its
// directory first on PATH); the section says that binary's version, and is named
// detection-node<major> unless --section is given, so each Node line gets its own.
//
// At the default settings unless --window / --min-growth are given: the config sets only the
// name, one worker and no metrics port. How it is judged, on the supervisor's own log clock from
// the first worker.ready (or from when the app starts leaking, for heap-leak-late):
// - a heap, external or children leak must be named (leak.warning or a leak recycle) within 180 s
//   of ready when it starts with the worker (the warm-up hold, leak.warmUp, comes first), or
//   within 120 s of its start when it starts later (heap-leak-late); a heap leak's top site must
//   be the function that retains, where the app has one;
// - a handles leak within 60 s, with the types that grow (and, for agent-per-request-peer, the
//   fds named as TCP to the one peer);
// - native leaks by the window verdict: ready + (warmup + 1) × window, after the settle time, plus 60 s;
// - fd-leak passes on a `fd-growth` or `handles` advice or a handles/leak verdict, in the same time;
// - a healthy app passes when nothing recycles it and no leak.warning names it for the whole run;
// - a leak through an npm package (bench/corpus/packages, installed there by `npm ci` from its own
//   lockfile when its node_modules is missing) passes only when its top site is the package's
//   (`package`, name@version) and `via`, the app's own frame that called into it, is the app's
//   function in the app's own file.
// False verdicts: leak verdicts on a healthy app, or of a kind not expected, over the whole run.
// Retainers (reported beside the verdict, never changing PASS/FAIL): the worker.retainers event a
// heap or external leak recycle brings (the drained worker's heap snapshot, read): named, refused
// (why) or none; `holder` in EXPECTED is what truly holds the leaked objects, a RegExp over the
// first holder's name, or an object of RegExps over its `name`, `file`, `package`, `kind` (the
// holder's own type: the path's last word) and `type` (its most common element's).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseDuration, parseRate } from '../src/units.js';
import { request } from '../src/control/client.js';
import { LEAK_THRESHOLDS } from '../src/core/leak/leak-detector.js';
import { freePort, atExit } from './lib/spawn.js';
import { startLoad } from './lib/keepalive-load.js';
import { commitOf, writeSection } from './lib/results.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CORPUS = path.join(ROOT, 'bench/corpus');
const PACKAGES = path.join(CORPUS, 'packages'); // apps using real npm packages: its own package.json and lockfile
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
  // Steady growth that stops: a table built at 10 MiB/min for 90 s, a cache filled at a constant
  // rate to its cap in 120 s. Until it stops, each rises exactly as a leak from boot does.
  'warm-up-linear': { healthy: true },
  'cache-fill': { healthy: true },
  'hidden-healthy': { healthy: true },
  'listener-healthy': { healthy: true },
  'timer-healthy': { healthy: true },
  'socket-timer-healthy': { healthy: true },
  // A GC on nearly every poll, and old garbage piling up between major GCs: its floors after
  // scavenges climb as a leak's do. The same load with a journal kept per request, 1.5 MiB/min;
  // holder: the module-level array `journal`.
  'busy-healthy': { healthy: true },
  'heap-leak-busy': { kind: 'heap', site: /heap-leak-busy\.js/, holder: { name: /^journal$/, kind: /^Array$/ } },
  // Holders: the module-level Map `memo`; the emitter `bus`'s listener array for 'config' (each
  // listener a closure over its array); the module-level array `recent`; users.js's array `seen`;
  // `feed`'s listener array for 'data'. The analyser's name is the declared path, cut to 4 parts.
  'heap-leak-fast': { kind: 'heap', site: /heap-leak-fast\.js/, holder: { name: /^memo$/, kind: /^Map$/ } },
  'heap-leak-slow': { kind: 'heap', site: /heap-leak-slow\.js/, holder: /^bus\._events\.config$/ },
  'heap-leak-late': { kind: 'heap', site: /heap-leak-late\.js/, startsAtS: 90, holder: { name: /^recent$/, kind: /^Array$/ } },
  'hidden-leak': { kind: 'heap', site: /^cacheUser .*hidden-leak\/users\.js/, holder: { name: /^seen$/, file: /users\.js$/ } },
  'listener-leak': { kind: 'heap', site: /^onRequest .*listener-leak\.js/, holder: /^feed\._events\.data$/ },
  // 12 timers a second, each holding 4 KiB: a handles leak and a heap leak at once, both true.
  // No holder expected: the Timeouts are held by Node's own timer list for 60 000 ms (internal/timers,
  // a linked list, each Timeout dominating the next), nothing the app declares; a handles recycle
  // takes no snapshot anyway. What the analyser says, if it is asked, is shown as is.
  'timer-leak': { kind: ['handles', 'heap'], site: /^onRequest .*timer-leak\.js/ },
  'socket-timer-leak': { kind: 'handles', types: ['TCPSocketWrap', 'Timeout'] },
  // The module-level arrays of Buffers `stash` and `uploads`.
  'buffer-leak': { kind: 'external', holder: /^stash$/ },
  'buffer-churn-leak': { kind: 'external', site: /^holdUpload .*buffer-churn-leak\.js/, holder: /^uploads$/ },
  'buffer-churn': { healthy: true },
  // zlib streams never ended. Node 26 counts part of zlib's state as external memory, so the rise
  // is confirmed there as external within two minutes, named by the streams' opening line (the
  // Buffer sampler tracks zlib streams); where it does not, native memory's window names it.
  // Holder (only an external verdict takes a snapshot): the module-level array `open` of Deflate streams.
  'native-leak': { kind: ['native', 'external'], site: /^\(anonymous\) .*native-leak\.js:/, holder: /^open$/ },
  // A start-up burst of zlib streams, all but a few closed: ~300 MiB malloc keeps, flat. No leak; the
  // native-gap advice must come, saying flat (rising: false).
  'allocator-retention': { healthy: true, advice: ['native-gap'], rising: false },
  'child-leak': { kind: 'children' },
  'child-healthy': { healthy: true },
  'fd-leak': { advice: ['fd-growth', 'handles'], kind: 'handles' },
  // Unref'd idle keep-alive sockets: only the fds climb, named by what they are (TCP to the upstream).
  'agent-per-request': { kind: 'handles', types: ['fd'] },
  // The same with the upstream in another process: one fd a call, all "TCP to" that one peer.
  'agent-per-request-peer': { kind: 'handles', types: ['fd'], fdKind: /^TCP to 127\.0\.0\.1:\d+, ESTABLISHED$/ },
  // Leaks through real, unmodified npm packages (bench/corpus/packages/<app>/server.js), each with a
  // healthy twin using the same package correctly. `site` is the top site's `fn file:line`, `package`
  // its name@version, `via` the app's own frame that called into the package.
  // MemoryStore.set keeps JSON.stringify(session) per session id: a new session per cookieless visit.
  // Holder: the MemoryStore's `sessions` dictionary (a JSON string per id), the store being the
  // `store` of the session() middleware's closure (express-session/index.js).
  'express-session-leak': { kind: 'heap', site: /^set .*node_modules\/express-session\/session\/memory\.js:/, package: /^express-session@/, via: /^saveVisit .*express-session-leak\/server\.js:/,
    holder: { name: /(^|\.)sessions$/, package: /^express-session@/ } },
  'express-session-healthy': { healthy: true },
  // A Histogram labelled by the raw path: prom-client keeps a series (labels, bucket counts) per value.
  // Holder: the Histogram's `hashMap` (a series per label hash), the Histogram being the app's own
  // module-level `duration` (also reachable through `registry`): declared in the app, so no package.
  'prom-client-leak': { kind: 'heap', site: /^createBaseValues .*node_modules\/prom-client\/lib\/histogram\.js:/, package: /^prom-client@/, via: /^countRequest .*prom-client-leak\/server\.js:/,
    holder: /^(duration|registry\._metrics\.\S+)\.hashMap$/ },
  'prom-client-healthy': { healthy: true },
  // node-cache with stdTTL 0 keeps every URL's value; what it keeps is the deep copy made by its own
  // dependency `clone` (useClones, the default): the allocating package, named through node-cache.
  // Holder: the NodeCache's `data` dictionary (a wrapped clone per URL), the cache being the app's
  // module-level `cache`: declared in the app, so no package. A NodeCache has more than 16 properties
  // (its methods are bound onto it), so by the privacy rule (docs/retainers.md) `data` reads `[key]`.
  'node-cache-leak': { kind: 'heap', site: /^_clone .*node_modules\/clone\/clone\.js:/, package: /^clone@\S+ through node-cache@/, via: /^cacheLookup .*node-cache-leak\/server\.js:/,
    holder: /^cache(\.data|\[key\])$/ },
  'node-cache-healthy': { healthy: true },
  // memoizee without max keeps every key it builds from the arguments (primitive: true joins them).
  // Holder: memoizee's `cache` (Object.create(null), a key string per call) in the closure of
  // configure-map.js's exported function: memoizee's own scope, so its package.
  'memoizee-leak': { kind: 'heap', site: /node_modules\/memoizee\/lib\/configure-map\.js:/, package: /^memoizee@/, via: /^authorize .*memoizee-leak\/server\.js:/,
    holder: { name: /^cache$/, package: /^memoizee@/ } },
  'memoizee-healthy': { healthy: true },
};
const kinds = (exp) => [exp.kind ?? []].flat();
const scriptOf = (name) => [path.join(CORPUS, name, 'server.js'), path.join(PACKAGES, name, 'server.js')].find((f) => fs.existsSync(f)) ?? path.join(CORPUS, `${name}.js`);
// The targets at the default settings, from when the leak starts; a leak that starts with the
// worker cannot be told from a warm-up before the warm-up hold (leak.warmUp, 150 s) has passed,
// and is due by BOOT_S after ready instead.
const TARGET_S = { heap: 120, external: 120, handles: 60, children: 120 };
const BOOT_S = 180;

const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string' },
    quick: { type: 'boolean', default: false },
    results: { type: 'string', default: RESULTS },
    section: { type: 'string' }, // the RESULTS.md section written (detection, or detection-node<major> with --node): a second setting gets its own
    only: { type: 'string' },
    window: { type: 'string' }, // default: the config's own (5m)
    'min-growth': { type: 'string' }, // default: the config's own (1mb/min)
    poll: { type: 'string', default: '1s' },
    rps: { type: 'string', default: '5' },
    write: { type: 'boolean', default: false },
    series: { type: 'string' }, // a directory: every poll's sample of each app is saved there, for diagnosis
    node: { type: 'string' }, // a node binary: nodesup and its workers run under it
  },
});

// The node binary nodesup (and so its workers: node:cluster forks process.execPath) runs under.
const NODE = opt.node ? path.resolve(opt.node) : process.execPath;
const nodeVersion = opt.node ? spawnSync(NODE, ['-v'], { encoding: 'utf8' }).stdout?.trim() : process.version;
if (!/^v\d+\./.test(nodeVersion ?? '')) {
  console.error(`--node ${opt.node}: not a node binary (\`${opt.node} -v\` said nothing)`);
  process.exit(2);
}
const section = opt.section ?? (opt.node ? `detection-node${nodeVersion.slice(1).split('.')[0]}` : 'detection');

const durationS = Number(opt.duration ?? (opt.quick ? 380 : 900));
const windowMs = parseDuration(opt.window ?? '5m');
const pollMs = parseDuration(opt.poll);
if (!(durationS > 0) || !windowMs || !pollMs || (opt['min-growth'] && parseRate(opt['min-growth']) === null)) {
  console.error('usage: node bench/detection.js [--duration 900] [--only a,b] [--window 5m] [--min-growth 1mb/min] [--poll 1s] [--rps 5] [--write] [--results FILE] [--series DIR] [--section NAME] [--node PATH] [--quick]');
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

/** Install the packages apps of bench/corpus/packages use, from its lockfile, when they are not there. */
function installPackages(apps) {
  if (!apps.some((n) => scriptOf(n).startsWith(`${PACKAGES}${path.sep}`)) || fs.existsSync(path.join(PACKAGES, 'node_modules'))) return;
  console.error(`installing ${path.relative(ROOT, PACKAGES)}: npm ci --no-audit --no-fund`);
  // npm's stdout goes to stderr: stdout is the section.
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PACKAGES, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) {
    console.error(`npm ci in ${PACKAGES} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})`);
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
  const env = { ...process.env, NODESUP_RUN_DIR: dir, PORT: String(port) };
  if (opt.node) env.PATH = `${path.dirname(NODE)}${path.delimiter}${process.env.PATH ?? ''}`;
  const child = spawn(NODE, [path.join(ROOT, 'bin/nodesup.js'), 'start', scriptOf(name), '-c', config], {
    cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env,
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
  // Ctrl-C or a SIGTERM to the bench stops each supervisor as a user would, workers and all.
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const forget = atExit(stop);
  const series = opt.series ? recordSeries(dir, name) : null;
  const timer = new Promise((r) => setTimeout(r, durationS * 1000));
  const early = await Promise.race([timer.then(() => null), exited]);
  await load?.stop();
  if (series) {
    series.stop();
    fs.mkdirSync(opt.series, { recursive: true });
    fs.writeFileSync(path.join(opt.series, `${name}.json`), `[\n${series.samples.map((x) => JSON.stringify(x)).join(',\n')}\n]\n`);
  }
  forget();
  await stop(); // a supervisor that already exited is only waited for
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
  const due = (k) => (k === 'handles' || exp.startsAtS ? starts + TARGET_S[k] : Math.max(BOOT_S, TARGET_S[k]));
  const targets = kinds(exp).map((k) => (defaults && TARGET_S[k] ? due(k) : fullAtMs(k, w) / 1000 + graceS));
  return Math.min(...targets);
}

const siteText = (s) => (s ? `${s.fn} ${s.file}:${s.line}` : null);
const viaText = (v) => (v ? `${v.fn ?? '(anonymous)'} ${v.file}:${v.line}` : null);

/**
 * Whether a frame's file is the app's own code under bench/corpus: its script, or for an app that is
 * a directory, any file of that directory outside node_modules.
 */
export function isAppFile(name, file) {
  if (!file || file.includes('node_modules/')) return false;
  const f = file.startsWith('file://') ? fileURLToPath(file) : file;
  const abs = path.isAbsolute(f) ? f : path.join(ROOT, f);
  const script = scriptOf(name);
  return path.basename(script) === 'server.js' ? abs.startsWith(`${path.dirname(script)}${path.sep}`) : abs === script;
}

/** The app's own frame a site names: the site itself, or for a library's site its `via`; null: none. */
export function appFrameOf(name, site) {
  if (!site) return null;
  const frame = site.package ? site.via : site;
  return frame && isAppFile(name, frame.file) ? frame : null;
}

/** Whether the first holder is the expected one: a RegExp over its name, or RegExps over its fields. */
export function holderMatches(expHolder, h) {
  const want = expHolder instanceof RegExp ? { name: expHolder } : expHolder;
  const field = { name: h.holder?.name, file: h.holder?.file, package: h.holder?.package, type: h.type, kind: h.path?.at(-1) };
  return Object.entries(want).every(([k, re]) => re.test(field[k] ?? ''));
}

/** The first holder in words, short: `memo: Map of 41000 Object (45.2 MiB, 93 %) app.js:11 pkg@1.0` (or `inside pkg@1.0`). */
export function holderText(h) {
  const where = h.holder?.file ? ` ${path.basename(h.holder.file)}${h.holder.line ? `:${h.holder.line}` : ''}` : '';
  const share = typeof h.share === 'number' ? `, ${Math.round(h.share * 100)} %` : '';
  const mib = typeof h.bytes === 'number' ? `, ${(h.bytes / 2 ** 20).toFixed(1)} MiB` : '';
  return `${h.holder?.name ?? '?'}: ${h.path?.at(-1) ?? '?'} of ${h.count ?? '?'} ${h.type ?? '?'} (${mib.slice(2)}${share})${where}${h.holder?.package ? ` ${h.holder.package}` : h.holder?.inside ? ` inside ${h.holder.inside}` : ''}`;
}

/** The verdict for one run: what happened, when and where, and PASS/FAIL against EXPECTED. */
export function judge(run, { windowMs: w = windowMs, graceS = GRACE_S } = {}) {
  const exp = EXPECTED[run.name];
  const ms = (e) => Date.parse(e.time);
  const ready = run.events.find((e) => e.event === 'worker.ready');
  const recycles = run.events.filter((e) => e.event === 'worker.recycle');
  const verdicts = run.events.filter((e) => e.event === 'leak.warning' || (e.event === 'worker.recycle' && e.reason === 'leak'));
  const advice = run.events.filter((e) => e.event === 'worker.advice' && exp.advice?.includes(e.code));
  const first = [...recycles, ...verdicts, ...advice].sort((a, b) => ms(a) - ms(b))[0] ?? null;
  // A leak that may be named as either of two kinds is held to the deadline of the kind it got.
  const deadlineS = exp.healthy ? null : deadlineOf(first && kinds(exp).includes(first.kind) ? { ...exp, kind: first.kind } : exp, w, graceS);
  const atS = first && ready ? (ms(first) - ms(ready)) / 1000 : null;
  const falseVerdicts = exp.healthy ? verdicts.length : verdicts.filter((e) => !kinds(exp).includes(e.kind)).length;
  const site = first?.sites?.[0] ?? null;
  // The retainer event: the first one whose snapshot was read, else the first one.
  const retainerEvents = run.events.filter((e) => e.event === 'worker.retainers');
  const ret = retainerEvents.find((e) => e.taken && e.held?.length) ?? retainerEvents[0] ?? null;
  const held0 = ret?.held?.[0] ?? null;
  const sited = first?.kind === 'heap' || first?.kind === 'external';
  const row = {
    app: run.name,
    expected: exp.healthy ? `healthy${exp.advice ? `, ${exp.advice[0]} advice${exp.rising === false ? ' (flat)' : ''}` : ''}` : kinds(exp).length ? `leak (${kinds(exp).join(' or ')})` : `${exp.advice[0]} advice`,
    recycles: recycles.length,
    reason: first ? (first.event === 'worker.advice' ? `advice ${first.code}` : first.event === 'leak.warning' ? 'leak.warning' : first.reason ?? first.event) : '-',
    kind: first?.kind ?? '-',
    atS,
    deadlineS,
    site: first?.kind === 'handles' ? first.summary ?? '-' : site ? `${siteText(site)}${site.via ? ` via ${viaText(site.via)}` : ''}` : '-',
    siteRight: exp.site && sited ? exp.site.test(siteText(site) ?? '') && (!exp.via || exp.via.test(viaText(site?.via) ?? ''))
      : exp.types && first?.kind === 'handles' ? exp.types.every((t) => first.types?.some((x) => x.type === t))
        && (!exp.fdKind || Boolean(first.types?.find((x) => x.type === 'fd')?.kinds?.some((k) => exp.fdKind.test(k.what)))) : null,
    package: sited ? `${site?.package ?? '-'}${site?.through ? ` through ${site.through}` : ''}` : '-',
    appFrame: sited && site ? appFrameOf(run.name, site) !== null : null,
    falseVerdicts,
    retainers: !ret ? 'none' : held0 ? 'named' : ret.taken === false ? `refused (${ret.why ?? '?'})`
      : ret.analysed === false ? `not read (${String(ret.error ?? '?').slice(0, 60)})` : 'named nothing',
    holderRight: exp.holder && held0 ? holderMatches(exp.holder, held0) : null,
    holder: held0 ? holderText(held0) : '-',
    holderAtS: ret && ready ? (ms(ret) - ms(ready)) / 1000 : null,
    held: ret?.held ?? null,
    retainerOf: ret ? `${ret.reason ?? '?'}${ret.kind ? `/${ret.kind}` : ''}` : null,
    falseList: (exp.healthy ? verdicts : verdicts.filter((e) => !kinds(exp).includes(e.kind)))
      .map((e) => `${e.event === 'leak.warning' ? 'leak.warning' : `recycle ${e.reason}`}/${e.kind ?? '-'} at ${ready ? ((ms(e) - ms(ready)) / 1000).toFixed(0) : '?'} s`),
    requests: `${run.load.ok}/${run.load.ok + run.load.failed}`,
    pass: false,
    why: '',
  };
  if (!ready) row.why = 'never ready';
  else if (run.early) row.why = `nodesup exited early (${run.early.signal ?? run.early.code})`;
  else if (exp.healthy) {
    // A healthy app may also expect an advice (allocator-retention: native-gap, flat): seen, and saying so.
    const advised = !exp.advice || advice.some((e) => exp.rising === undefined || e.rising === exp.rising);
    const named = [...recycles, ...verdicts].sort((a, b) => ms(a) - ms(b))[0];
    row.pass = !named && advised;
    if (named) row.why = `named: ${named.reason ?? named.event}${named.kind ? ` (${named.kind})` : ''}`;
    else if (!advised) row.why = advice.length ? `${exp.advice[0]} advice with rising ${advice[0].rising}` : `no ${exp.advice[0]} advice`;
  } else if (!first) row.why = 'not named';
  else if (atS > deadlineS) row.why = `late: ${atS.toFixed(0)} s > ${deadlineS} s`;
  else if (kinds(exp).length && !(exp.advice && first.event === 'worker.advice')) {
    const packageRight = exp.package ? exp.package.test(row.package) : true;
    const frameRight = exp.package ? row.appFrame === true : true;
    row.pass = kinds(exp).includes(first.kind) && row.siteRight !== false && packageRight && frameRight;
    if (!row.pass) {
      row.why = !kinds(exp).includes(first.kind) ? `wrong attribution: ${first.reason ?? first.event}/${first.kind ?? '-'}`
        : row.siteRight === false ? `wrong site: ${row.site}`
          : !packageRight ? `wrong package: ${row.package}`
            : `the app's frame not named: ${row.site}`;
    }
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

/** Under the table: each app whose first holder is wrong, with its held[]; leaking apps with no holder named. */
export function retainerNotes(rows) {
  const wrong = rows.filter((r) => r.holderRight === false);
  const missing = rows.filter((r) => EXPECTED[r.app].holder && r.retainers !== 'named');
  const cut = (s) => (s.length > 400 ? `${s.slice(0, 400)}…` : s);
  const others = rows.filter((r) => !EXPECTED[r.app].holder && r.retainers !== 'none');
  const falses = rows.filter((r) => r.falseList?.length);
  return [
    falses.length ? `False verdicts: ${falses.map((r) => `${r.app}: ${r.falseList.join(', ')}`).join('; ')}.` : 'False verdicts: none.',
    '',
    others.length ? `Retainer events on apps with no holder expected: ${others.map((r) => `${r.app} (for ${r.retainerOf}, at ${r.holderAtS?.toFixed(0)} s: ${r.retainers}${r.holder !== '-' ? `, ${r.holder}` : ''})`).join('; ')}.` : 'Retainer events on apps with no holder expected: none.',
    '',
    wrong.length ? `Holder wrong:\n${wrong.map((r) => `- ${r.app}: held \`${cut(JSON.stringify(r.held))}\``).join('\n')}` : 'Holder wrong: none.',
    '',
    missing.length ? `Holder expected, none named: ${missing.map((r) => `${r.app} (${r.retainers})`).join(', ')}.` : 'Holder expected, none named: none.',
    '',
  ];
}

/** The markdown section: conditions, how it is measured, and the table. */
export function renderSection(rows, meta) {
  const fmt = (x) => (x === null ? '-' : x.toFixed(0));
  const yes = (b) => (b === null ? '-' : b ? 'yes' : 'no');
  const settings = defaults ? 'the default settings (leak.window 5m, minGrowth 1mb/min, action recycle, no limits)'
    : `leak.window ${opt.window ?? '5m'}, minGrowth ${opt['min-growth'] ?? '1mb/min'}`;
  const lines = [
    section === 'detection' ? '## Leak detection' : `## Leak detection, ${section}`,
    '',
    `Command: \`${meta.command}\` at commit ${meta.commit}`,
    '',
    `Run ${meta.date} on ${meta.machine}. Each app ran ${durationS} s under its own supervisor (1 worker,`,
    `pollInterval ${opt.poll}, ${settings}, ${opt.rps} req/s of keep-alive load), all ${rows.length} at once.`,
    `nodesup and its workers ran on Node ${meta.node ?? nodeVersion}${opt.node ? ` (\`--node ${opt.node}\`)` : ''}.`,
    'Named at: from the first worker.ready to the first leak.warning or leak recycle (fd-leak: also its fd/handles',
    `advice), on the supervisor\'s log clock. Deadlines: a heap, external or children leak from boot ${BOOT_S} s after ready (the warm-up`,
    'hold first), one that starts later 120 s after its start (heap-leak-late starts at 90 s), handles 60 s; with other',
    `settings, or native, by the window (ready + (warmup ${LEAK_THRESHOLDS.warmup} + 1) × window + ${GRACE_S} s; native also`,
    `after ${LEAK_THRESHOLDS.settleMs / 60_000} min of age). Site: the top retaining site of a heap verdict (a library's with its \`via\`,`,
    'the app\'s frame that called into it), or the growing types of a handles one. Package: the top site\'s package',
    '(name@version), where it lies in node_modules. App frame: whether the top site, or its `via`, is a frame of the app\'s',
    'own file under bench/corpus. A leak through an npm package (bench/corpus/packages) passes only with its kind, its',
    'package and the app\'s frame named.',
    'False verdicts: leak verdicts on a healthy app, or of a kind not expected, over the whole run.',
    'Retainers (beside the result, never changing it): the worker.retainers event of the app (the first whose snapshot',
    'was read, else the first): named, refused (why), or none; holder right: its first holder against what truly holds',
    'the leak (EXPECTED\'s `holder`; - where none is expected); holder at: that event, from the first worker.ready.',
    '',
    '| app | expected | named at (s) | deadline (s) | kind | site | site right | package | app frame | false verdicts | recycles | requests ok | result | retainers | holder right | holder | holder at (s) |',
    '|---|---|---:|---:|---|---|---|---|---|---:|---:|---:|---|---|---|---|---:|',
    ...rows.map((r) => `| ${r.app} | ${r.expected} | ${fmt(r.atS)} | ${fmt(r.deadlineS)} | ${r.kind} | ${r.site} | ${yes(r.siteRight)} | ${r.package ?? '-'} | ${yes(r.appFrame ?? null)} | ${r.falseVerdicts} | ${r.recycles} | ${r.requests} | ${r.pass ? 'PASS' : `FAIL: ${r.why}`} | ${r.retainers} | ${yes(r.holderRight ?? null)} | ${r.holder} | ${fmt(r.holderAtS ?? null)} |`),
    '',
    `${rows.filter((r) => r.pass).length}/${rows.length} PASS. ${meta.notes ?? ''}`.trim(),
    '',
    ...retainerNotes(rows),
    meta.failures?.length ? `Failed requests, each with the nearest worker event:\n${meta.failures.map((f) => `- ${f}`).join('\n')}` : 'Failed requests: none.',
  ];
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const load0 = os.loadavg()[0];
  // The commit nodesup ran at: taken at the start (with any uncommitted src/, bench/ or bin/ file),
  // and HEAD at the end if it moved meanwhile (others commit while a run lasts).
  const commit0 = commitOf() ?? '?';
  installPackages(names);
  console.error(`running ${names.length} apps for ${durationS} s on Node ${nodeVersion}: ${names.join(', ')}`);
  const runs = await Promise.all(names.map(runApp));
  const rows = runs.map((r) => judge(r));
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${nodeVersion}${nodeVersion === process.version ? '' : ` (the bench itself on ${process.version})`}`;
  const text = renderSection(rows, {
    command: `node bench/detection.js${process.argv.slice(2).filter((a) => a !== '--write').map((a) => ` ${a}`).join('')}`,
    commit: ((c1) => (c1.split(' ')[0] === commit0.split(' ')[0] ? commit0 : `${commit0} (HEAD at the end: ${c1}; nodesup had loaded the start's code: only processes started later, workers and analysers, could load newer files)`))(commitOf() ?? '?'),
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine,
    notes: `Load average ${load0.toFixed(2)} at the start, ${os.loadavg()[0].toFixed(2)} at the end.`,
    failures: runs.flatMap(describeFailures),
    node: nodeVersion,
  });
  process.stdout.write(`${text}\n`);
  for (const r of runs) if (r.early) process.stderr.write(`${r.name}: ${r.stderr}\n`);
  for (const [i, row] of rows.entries()) {
    if (row.pass) continue;
    const firstBad = runs[i].events.find((e) => e.event === 'worker.recycle' || e.event === 'leak.warning');
    if (firstBad) process.stderr.write(`${row.app}: ${JSON.stringify(firstBad)}\n`);
  }
  if (opt.write) writeSection(opt.results, section, text);
  process.exitCode = rows.every((r) => r.pass) ? 0 : 1;
}
