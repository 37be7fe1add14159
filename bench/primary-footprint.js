// The primary's memory beside a bare node:cluster primary forking the same idle app: 8 workers,
// nodesup with its defaults and metrics on, scraped every second through the window (as Prometheus
// would, faster). Legs alternate bare, nodesup; each leg: fresh primary, every worker ready, settle,
// then the primary's RSS and PSS (smaps_rollup) averaged over the window. Target: nodesup ≤ 1.1× bare RSS.
//
// `--history full`: the footprint of a primary that has run for hours, not of one just started.
// The slot history (6 h per slot) starts full (bench/lib/versus.js withFullSlotHistory: a scratch
// copy of the checkout whose history is fed 6 h of made-up samples and its event lists' worth of
// events on each slot's first sample), and the settle is 620 s, so that each worker's sample
// history (max(1.25 × leak.window, 10 min) of real polls, which cannot be made up without
// feeding the leak detector) is full too.
//
// `--old DIR`: the same measurement, this checkout against another one, instead of against bare.
// DIR is a checkout of the commit to compare against, made with
//   git worktree add /tmp/nodesup-old <commit> && (cd /tmp/nodesup-old && npm ci)
// Pairs of legs, old and new in turns (old first in the 1st, 3rd, … pair); reported: new ÷ old
// RSS, PSS and CPU with their 95 % intervals. `--history full` is the default with --old: a
// refactor that made the history's rings or the sample windows dearer shows only once they are full.
// Written as its own section, primary-footprint-vs-old.
//
// `--hup`: each nodesup leg gets a SIGHUP once its workers are ready, and is measured once that
// reload is over (its `reload` event) and the settle has passed: a SIGHUP re-reads the config,
// and what that loads must not stay (the bare primary has no reload: a SIGHUP would kill it).
// `--floors`: two more legs a round, the floor of the required stack (bench/apps/stack-primary.js:
// the bare primary plus pino writing its log and a prom-client registry served at /metrics, scraped
// as nodesup is; once on node:http, once on a response written by hand on node:net), so that the
// table says how much of the 1.1× a supervisor on this stack has before any code of its own.
// `--node A,B,…`: the same run under each of these Node binaries in turn (this script, re-run by
// each, prints its legs as JSON), one table per Node line, in one section.
//   node bench/primary-footprint.js [--quick] [--write] [--rounds 3] [--workers 8] [--window 20] [--history empty|full] [--hup] [--floors] [--node A,B]
//   node bench/primary-footprint.js --old /tmp/nodesup-old [--quick] [--write] [--rounds 3] [--history full|empty] [--settle S]
//     (about 11 minutes a leg with the history full: 3 rounds, 6 legs, about 65 minutes)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, ROOT } from './lib/args.js';
import { startPrimary, startNodesup, freePort, cleanupAll, scratch, delay } from './lib/spawn.js';
import { cpuMeter } from './lib/proc.js';
import { mean, sd, fx, mib, min } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { oldTree, pairOrder, ratioCi, ciText, verdict, withFullSlotHistory, OLD_USAGE } from './lib/versus.js';

const opts = benchArgs({
  rounds: { type: 'string' }, workers: { type: 'string', default: '8' }, window: { type: 'string' }, settle: { type: 'string' },
  old: { type: 'string' }, history: { type: 'string' }, hup: { type: 'boolean', default: false }, node: { type: 'string' }, 'legs-json': { type: 'string' },
  floors: { type: 'boolean', default: false },
}, `node bench/primary-footprint.js [--quick] [--write] [--rounds N] [--workers N] [--window S] [--settle S] [--history empty|full] [--hup] [--floors] [--node A,B] [--old DIR]\n  ${OLD_USAGE}`);
if (opts.floors && opts.old) { process.stderr.write('--floors runs beside bare, not --old\n'); process.exit(2); }
if (opts.node && opts.old) { process.stderr.write('--node runs the bare comparison; for --old, run this script with that node\n'); process.exit(2); }
const HUP = opts.hup;
const OLD = opts.old ? oldTree(opts.old) : null;
const HISTORY = opts.history ?? (OLD ? 'full' : 'empty');
if (!['empty', 'full'].includes(HISTORY)) { process.stderr.write(`--history: empty or full, not ${HISTORY}\n`); process.exit(2); }
const FULL = HISTORY === 'full';
// Each worker's sample history: max(1.25 × leak.window, 10 min) with the defaults run here.
const SAMPLE_HISTORY_S = 600;
const ROUNDS = Number(opts.rounds ?? (opts.quick ? (OLD ? 2 : 1) : 3));
const WORKERS = Number(opts.workers);
const WINDOW = Number(opts.window ?? (opts.quick ? 5 : 20));
const SETTLE = Number(opts.settle ?? (opts.quick ? 2 : FULL ? SAMPLE_HISTORY_S + 20 : 5));
const APP = path.join(ROOT, 'bench/apps/idle.js');
const BARE = path.join(ROOT, 'bench/apps/bare-primary.js');
const STACK = path.join(ROOT, 'bench/apps/stack-primary.js');
// The floors' legs and how each serves /metrics.
const FLOORS = { 'stack-http': 'http', 'stack-net': 'net' };
const KINDS = ['bare', ...(opts.floors ? Object.keys(FLOORS) : []), 'nodesup'];
// The checkout each kind of nodesup leg runs; with the history full, its filled scratch copy.
const TREES = {};

function memory(pid) {
  const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('Rss'), pss: kb('Pss') };
}
// Where a primary's RSS is, at the end of its window (/proc/PID/smaps): the node executable's pages
// it touched (file-backed, shared with its workers: PSS counts a share), anonymous memory (the V8
// heap, ArrayBuffers, thread stacks), the malloc heap (brk), and the shared libraries.
function split(pid) {
  const exe = fs.realpathSync(`/proc/${pid}/exe`);
  const out = { binary: 0, anon: 0, brk: 0, libs: 0 };
  let kind = 'anon';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const name = head[1];
      kind = name === exe ? 'binary' : name === '[heap]' ? 'brk' : name === '' || name.startsWith('[') ? 'anon' : 'libs';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[kind] += Number(rss[1]) * 1024;
  }
  return out;
}
const SPLIT = [['binary', 'node executable'], ['anon', 'anonymous'], ['brk', 'malloc heap'], ['libs', 'libraries']];

const scrape = (port) => new Promise((resolve) => {
  http.get({ host: '127.0.0.1', port, path: '/metrics' }, (res) => { res.resume(); res.on('end', resolve); }).on('error', resolve);
});

/** How full the slot histories were at the end: the emptiest slot's points and events. */
async function historyFill(run) {
  try {
    const doc = JSON.parse(await run.cli(['history', '--json']));
    const slots = doc.slots ?? [];
    return { slots: slots.length, fine: min(slots.map((s) => s.fine.t.length)), coarse: min(slots.map((s) => s.coarse.t.length)), events: min(slots.map((s) => s.events.length)) };
  } catch (err) {
    process.stderr.write(`history --json: ${err.message.slice(0, 300)}\n`);
    return null;
  }
}

async function leg(kind) {
  const env = { PORT: String(await freePort()), WORKERS: String(WORKERS) };
  const mport = await freePort();
  const run = kind === 'bare' ? startPrimary([BARE, APP], { env, cwd: scratch(), name: 'bare primary' })
    : FLOORS[kind] ? startPrimary([STACK, APP], { env: { ...env, METRICS_PORT: String(mport), SERVE: FLOORS[kind] }, cwd: scratch(), name: kind })
      : startNodesup([APP, '-w', String(WORKERS), '--metrics', `127.0.0.1:${mport}`], { env, root: TREES[kind] });
  const nodesup = kind !== 'bare' && !FLOORS[kind];
  try {
    const start = await run.waitFor((e) => e.event === 'supervisor.start', { what: 'supervisor.start' });
    await run.waitReady(WORKERS, { timeout: 60_000 });
    const reload = HUP && nodesup ? await hangUp(run, start.primaryPid) : null;
    await delay(SETTLE * 1000);
    const samples = [];
    const cpu = cpuMeter(start.primaryPid);
    cpu.start();
    for (let s = 0; s < WINDOW; s++) {
      if (kind !== 'bare') await scrape(mport);
      samples.push(memory(start.primaryPid));
      await delay(1000);
    }
    const c = cpu.stop();
    const where = split(start.primaryPid);
    // After the window: the dump is a few MiB of JSON the primary builds, not part of the footprint.
    const fill = nodesup && FULL ? await historyFill(run) : null;
    return { kind, rss: mean(samples.map((x) => x.rss)), pss: mean(samples.map((x) => x.pss)), cpu: c?.percent ?? null, fill, reload, samePid: start.primaryPid === run.pid, where };
  } finally {
    await run.stop();
  }
}

/** SIGHUP the primary, and wait for the rolling reload it starts to be over; its result. */
async function hangUp(run, pid) {
  const before = run.events.length;
  process.kill(pid, 'SIGHUP');
  const ev = await run.waitFor((e) => run.events.indexOf(e) >= before && (e.event === 'reload' || e.event === 'config.invalid'), { what: 'the SIGHUP reload', timeout: 240_000 });
  if (ev.event !== 'reload' || ev.result !== 'ok') throw new Error(`SIGHUP: ${ev.event} ${ev.result ?? ev.error}`);
  return ev.result;
}

const legLine = (label, r) => `${label}: RSS ${mib(r.rss)} MiB, PSS ${mib(r.pss)} MiB, CPU ${fx(r.cpu, 2)} %${r.fill ? `, history of the emptiest slot: ${r.fill.fine} fine / ${r.fill.coarse} coarse points, ${r.fill.events} events` : ''}\n`;

const historyText = () => (FULL
  ? `The history full: each slot's history (30 min per poll, 6 h per 30 s, its recycles and events) filled on its first sample with 6 h of samples like it, its recycle marks and its kept events (leak warnings with 3 sites; bench/lib/slot-history-fill.js, in a scratch copy of each checkout), and a ${SETTLE} s settle${SETTLE >= SAMPLE_HISTORY_S ? `, past the ${SAMPLE_HISTORY_S / 60} min each worker's sample history takes to fill with real polls` : `: shorter than the ${SAMPLE_HISTORY_S / 60} min each worker's sample history takes to fill, so those were not full`}.`
  : `The slot history as a fresh primary has it (nearly empty); ${SETTLE} s settle.`);

async function main() {
  if (opts.node) return acrossNodeLines(opts.node.split(',').filter(Boolean));
  if (FULL) process.stderr.write('copying the checkout(s) with the slot history filled\n');
  TREES.nodesup = FULL ? withFullSlotHistory(ROOT) : ROOT;
  if (OLD) return versusOld();
  const load = os.loadavg()[0];
  const legs = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of KINDS) {
      const r = await leg(kind);
      legs.push(r);
      process.stderr.write(legLine(`round ${i + 1}/${ROUNDS} ${kind}`, r));
    }
  }
  const line = { node: process.version, legs, load: [load, os.loadavg()[0]] };
  if (opts['legs-json']) return fs.writeFileSync(opts['legs-json'], JSON.stringify(line));
  publishLines([line]);
}

/** This script under each Node binary in turn, its legs read back; one section. */
async function acrossNodeLines(binaries) {
  const dir = scratch('primary-footprint-lines-');
  const own = new Set(['--node', '--write', '--results', '--legs-json']);
  const args = process.argv.slice(2).filter((a, i, all) => !own.has(a) && !own.has(all[i - 1]) && ![...own].some((o) => a.startsWith(`${o}=`)));
  const lines = [];
  for (const [i, bin] of binaries.entries()) {
    const out = path.join(dir, `line-${i}.json`);
    process.stderr.write(`--- ${bin}\n`);
    execFileSync(bin, [process.argv[1], ...args, '--legs-json', out], { stdio: ['ignore', 'inherit', 'inherit'] });
    lines.push(JSON.parse(fs.readFileSync(out, 'utf8')));
  }
  publishLines(lines);
}

function publishLines(lines) {
  const of = (legs, k) => legs.filter((l) => l.kind === k);
  const cell = (legs, k, key) => mib(mean(of(legs, k).map((l) => l[key])));
  const rows = lines.map(({ node, legs }) => {
    const ratios = of(legs, 'nodesup').map((l, i) => l.rss / of(legs, 'bare')[i].rss);
    const r = mean(ratios);
    return [node, cell(legs, 'bare', 'rss'), cell(legs, 'nodesup', 'rss'), mib(sd(of(legs, 'nodesup').map((l) => l.rss))),
      cell(legs, 'bare', 'pss'), cell(legs, 'nodesup', 'pss'), `**${fx(r, 2)}** (${ratios.map((x) => fx(x, 2)).join(', ')})`, r <= 1.1 ? 'met' : 'missed'];
  });
  const all = lines.flatMap((l) => l.legs);
  const floors = all.some((l) => FLOORS[l.kind]);
  const over = (legs, k, base) => ratioCi(of(legs, base).map((l) => l.rss), of(legs, k).map((l) => l.rss)).ci;
  const floorRows = lines.map(({ node, legs }) => [node, cell(legs, 'stack-http', 'rss'), `**${ciText(over(legs, 'stack-http', 'bare'), 2)}**`,
    cell(legs, 'stack-net', 'rss'), `**${ciText(over(legs, 'stack-net', 'bare'), 2)}**`, ciText(over(legs, 'nodesup', 'stack-http'), 2)]);
  const beyond = (legs, k, base) => SPLIT.map(([key, label]) => `${label} ${fx((mean(of(legs, k).map((l) => l.where[key])) - mean(of(legs, base).map((l) => l.where[key]))) / 2 ** 20, 1)}`).join(', ');
  const samePid = of(all, 'nodesup').every((l) => l.samePid);
  const body = [
    `${WORKERS} workers of \`bench/apps/idle.js\` under a bare node:cluster primary (\`bench/apps/bare-primary.js\`) and under nodesup (defaults, metrics on, /metrics scraped every second); ${ROUNDS} rounds a Node line, legs in turns (${KINDS.join(', ')}); each leg: every worker ready,${HUP ? ' for nodesup a SIGHUP and its rolling reload over (`reload`, result ok, in every leg),' : ''} ${SETTLE} s settle, then the primary's RSS and PSS (smaps_rollup) averaged over ${WINDOW} s. ${historyText()}`,
    '',
    table(['Node', 'bare RSS MiB', 'nodesup RSS MiB', '± sd', 'bare PSS MiB', 'nodesup PSS MiB', 'nodesup / bare RSS (per round)', 'target ≤ 1.1'], rows),
    '',
    `Where nodesup's RSS is beyond bare's, MiB (/proc/PID/smaps at the end of each window, means): ${lines.map(({ node, legs }) => `${node}: ${beyond(legs, 'nodesup', 'bare')}`).join('; ')}. The executable's pages are shared with the workers (PSS counts a share of them); anonymous is mostly the V8 heap.`,
    '',
    ...(floors ? [
      `The floor of the required stack (\`bench/apps/stack-primary.js\`, in the same rounds, after bare): the bare primary plus pino writing its log and a prom-client registry (one gauge a worker, set every second) served at /metrics and scraped every second as nodesup's is, on node:http as nodesup serves it, and on a response written by hand on node:net. Ratios: mean of the rounds' ratios, 95 % interval over the rounds.`,
      '',
      table(['Node', 'stack, node:http: RSS MiB', '÷ bare RSS', 'stack, node:net: RSS MiB', '÷ bare RSS', 'nodesup ÷ stack on node:http'], floorRows),
      '',
      `Where the stack on node:http is beyond bare, MiB: ${lines.map(({ node, legs }) => `${node}: ${beyond(legs, 'stack-http', 'bare')}`).join('; ')}. Where nodesup is beyond it: ${lines.map(({ node, legs }) => `${node}: ${beyond(legs, 'nodesup', 'stack-http')}`).join('; ')}.`,
      '',
    ] : []),
    `${samePid ? 'In every nodesup leg the primary (its `supervisor.start` primaryPid) was the pid the bench started `nodesup start` as' : 'In some nodesup legs the primary was not the pid the bench started (see stderr)'}. Host load (1-min average) at the start and end of each line: ${lines.map((l) => `${l.node} ${l.load.map((x) => fx(x, 2)).join('→')}`).join(', ')}.`,
    ...(all.some((l) => l.fill) ? ['', `History at the end of each nodesup leg, emptiest slot (fine points / coarse points / events): ${of(all, 'nodesup').map((l) => (l.fill ? `${l.fill.fine}/${l.fill.coarse}/${l.fill.events}` : '?')).join(', ')}.`] : []),
  ].join('\n');
  publish(opts, 'primary-footprint', `The primary's footprint beside a bare primary`, body);
}

// versus.js's verdict for a cost says "not higher (the interval reaches 1)" also when the whole
// interval is below 1: that case, said as it is.
const costVerdict = (r) => (r.ratios.length >= 2 && r.ci[2] < 1 ? 'lower (the whole interval is below 1)' : verdict(r, { better: 'lower' }));

async function versusOld() {
  const load = os.loadavg()[0];
  TREES.old = FULL ? withFullSlotHistory(OLD.root) : OLD.root;
  TREES.new = TREES.nodesup;
  const legs = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of pairOrder(i)) {
      const r = { ...(await leg(kind)), round: i };
      legs.push(r);
      process.stderr.write(legLine(`pair ${i + 1}/${ROUNDS} ${kind}`, r));
    }
  }
  const of = (k) => legs.filter((l) => l.kind === k).sort((a, b) => a.round - b.round);
  const ratio = (key) => ratioCi(of('old').map((l) => l[key]), of('new').map((l) => l[key]));
  const rss = ratio('rss');
  const pss = ratio('pss');
  const cpu = ratio('cpu');
  const fills = legs.map((l) => l.fill).filter(Boolean);
  const row = (k, label) => [label, mib(mean(of(k).map((l) => l.rss))), mib(sd(of(k).map((l) => l.rss))), mib(mean(of(k).map((l) => l.pss))), fx(mean(of(k).map((l) => l.cpu)), 2)];
  const body = [
    `${WORKERS} workers of \`bench/apps/idle.js\` under nodesup (defaults, metrics on, /metrics scraped every second), the old checkout (${OLD.commit}) against this one; ${ROUNDS} pairs of legs, old first in odd-numbered pairs and new first in even ones; each leg: fresh primary, every worker ready,${HUP ? ' a SIGHUP and its rolling reload over (`reload`, result ok),' : ''} ${SETTLE} s settle, then the primary's RSS and PSS (smaps_rollup) averaged over ${WINDOW} s and its CPU (utime+stime over wall time, % of one core) over the same ${WINDOW} s. ${historyText()}`,
    '',
    table(['nodesup', 'RSS MiB (mean)', '± sd', 'PSS MiB (mean)', 'primary CPU, % of a core'], [row('old', `old (${OLD.commit})`), row('new', 'new (this checkout)')]),
    '',
    // The MiB beside the ratio: steady legs make a tight interval, and a quarter of a MiB can be "higher".
    `**new ÷ old RSS = ${ciText(rss.ci)}**, 95 % interval over ${rss.ratios.length} pairs: ${costVerdict(rss)}; new − old ${fx((mean(of('new').map((l) => l.rss)) - mean(of('old').map((l) => l.rss))) / 2 ** 20, 2)} MiB; per pair ${rss.ratios.map((x) => fx(x, 3)).join(', ')}.`,
    `new ÷ old PSS = ${ciText(pss.ci)}; new ÷ old primary CPU = ${ciText(cpu.ci, 2)}: ${costVerdict(cpu)}.`,
    ...(FULL ? ['', fills.length === legs.length
      ? `History at the end of each leg, emptiest slot: ${fills.map((f) => `${f.fine}/${f.coarse}/${f.events}`).join(', ')} (fine points / coarse points / events; legs in order).`
      : `History at the end: read in ${fills.length} of ${legs.length} legs (\`nodesup history --json\` failed in the others; see stderr).`] : []),
    '',
    `Legs in order (RSS MiB): ${legs.map((l) => `${l.kind} ${mib(l.rss)}`).join(', ')}. Host load (1-min average) at the start and end: ${fx(load, 2)}→${fx(os.loadavg()[0], 2)}.`,
  ].join('\n');
  publish(opts, 'primary-footprint-vs-old', `The primary's footprint, old (${OLD.commit}) against new`, body);
}

main().catch((err) => { process.stderr.write(`primary-footprint: ${err.stack}\n`); process.exitCode = 1; }).finally(cleanupAll);
