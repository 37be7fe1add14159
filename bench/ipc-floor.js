// The floor under the primary's poll: what asking N processes once a second over node's IPC
// channel costs a parent that does nothing else. N forked children that answer a stats-sized
// message at once; the parent asks them all at once, or in groups that take turns over the second
// (as nodesup's poll does past 16 workers). No nodesup code runs: this is the cost of the
// channel and of waking idle processes on this host, which no primary built on node:cluster's
// IPC gets under. CPU from /proc/<pid>/schedstat (time on a CPU, ns), not from clock ticks.
//   node bench/ipc-floor.js [--quick] [--write] [--workers 128] [--groups 1,4,8] [--seconds 20]
//
// `--pushed R`: against each asked leg, a leg where every child sends the same reply by itself
// once a second, at its group's turn, and the parent only reads: what the parent would save if
// the worker's agent sent its samples unasked. R pairs per group count, in turns (asked first in
// odd pairs); reported as pushed ÷ asked parent CPU with its 95 % interval. Section ipc-floor-pushed.
//   node bench/ipc-floor.js --pushed 4 --groups 8 [--write]
import fs from 'node:fs';
import path from 'node:path';
import { fork } from 'node:child_process';
import { benchArgs } from './lib/args.js';
import { scratch, delay, own, disown } from './lib/spawn.js';
import { fx, mean, percentile } from './lib/stats.js';
import { publish, table } from './lib/results.js';
import { REPLY, CHILD } from './lib/ipc-floor-parent.js';
import { ratioCi, ciText, verdict } from './lib/versus.js';

const opts = benchArgs({
  workers: { type: 'string', default: '128' }, groups: { type: 'string', default: '1,4,8' }, seconds: { type: 'string' },
  pushed: { type: 'string' },
}, 'node bench/ipc-floor.js [--quick] [--write] [--workers N] [--groups 1,4,8] [--seconds S] [--pushed R]');
const N = Number(opts.workers);
const GROUPS = opts.groups.split(',').map(Number);
const SECONDS = Number(opts.seconds ?? (opts.quick ? 5 : 20));

const onCpuMs = (pid) => {
  try { return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'latin1').split(' ')[0]) / 1e6; } catch { return null; }
};

async function leg(kids, groups) {
  let pending = 0;
  let done = () => {};
  const onReply = (m) => { if (m?.cmd === 'NODE_FLOOR_REPLY' && --pending === 0) done(); };
  for (const k of kids) k.on('internalMessage', onReply);
  const rounds = SECONDS * groups;
  const times = [];
  const p0 = onCpuMs(process.pid);
  const k0 = kids.reduce((a, k) => a + (onCpuMs(k.pid) ?? 0), 0);
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    const group = kids.filter((_, i) => i % groups === r % groups);
    const replied = new Promise((resolve) => { done = resolve; });
    pending = group.length;
    for (const k of group) k.send({ cmd: 'NODE_FLOOR', id: r });
    await replied;
    times.push(performance.now() - started);
    await delay(Math.max(0, 1000 / groups - (performance.now() - started)));
  }
  const wall = performance.now() - t0;
  for (const k of kids) k.off('internalMessage', onReply);
  const kidsMs = kids.reduce((a, k) => a + (onCpuMs(k.pid) ?? 0), 0) - k0;
  return {
    groups, rounds, parent: (100 * (onCpuMs(process.pid) - p0)) / wall, kids: (100 * kidsMs) / wall, perWake: kidsMs / (rounds * (N / groups)),
    p50: percentile(times, 0.5), p99: percentile(times, 0.99), max: percentile(times, 1),
  };
}

// The children send by themselves, group g at g/groups of each second, for SECONDS; the parent
// only reads what arrives.
async function pushedLeg(kids, groups) {
  let got = 0;
  const onReply = (m) => { if (m?.cmd === 'NODE_FLOOR_REPLY') got++; };
  for (const k of kids) k.on('internalMessage', onReply);
  const p0 = onCpuMs(process.pid);
  const k0 = kids.reduce((a, k) => a + (onCpuMs(k.pid) ?? 0), 0);
  const t0 = performance.now();
  kids.forEach((k, i) => k.send({ cmd: 'NODE_FLOOR_PUSH', on: true, everyMs: 1000, offsetMs: Math.round(((i % groups) * 1000) / groups) }));
  await delay(SECONDS * 1000);
  for (const k of kids) k.send({ cmd: 'NODE_FLOOR_PUSH', on: false });
  const wall = performance.now() - t0;
  const parent = (100 * (onCpuMs(process.pid) - p0)) / wall;
  const kidsMs = kids.reduce((a, k) => a + (onCpuMs(k.pid) ?? 0), 0) - k0;
  await delay(200); // replies already on their way are read outside the window's count
  for (const k of kids) k.off('internalMessage', onReply);
  return { groups, parent, kids: (100 * kidsMs) / wall, replies: got };
}

async function pushedVersusAsked(kids) {
  const pairs = Number(opts.pushed);
  const rows = [];
  const lines = [];
  for (const g of GROUPS) {
    const asked = [];
    const pushed = [];
    for (let i = 0; i < pairs; i++) {
      for (const kind of i % 2 === 0 ? ['asked', 'pushed'] : ['pushed', 'asked']) {
        const r = kind === 'asked' ? await leg(kids, g) : await pushedLeg(kids, g);
        (kind === 'asked' ? asked : pushed).push(r);
        process.stderr.write(`${N} children, ${g} group(s), ${kind}: parent ${fx(r.parent, 2)} % of a core, children ${fx(r.kids, 1)} %\n`);
      }
    }
    const avg = (xs, f) => mean(xs.map((x) => x[f]));
    rows.push([g, 'asked, answered at once', pairs, fx(avg(asked, 'parent'), 2), fx(avg(asked, 'kids'), 1)]);
    rows.push([g, 'sent unasked', pairs, fx(avg(pushed, 'parent'), 2), fx(avg(pushed, 'kids'), 1)]);
    const cpu = ratioCi(asked.map((r) => r.parent), pushed.map((r) => r.parent));
    lines.push(`- ${g} group(s): **parent CPU, pushed ÷ asked = ${ciText(cpu.ci)}**, ${verdict(cpu, { better: 'lower' })}; replies read while pushed: ${pushed.map((r) => r.replies).join(', ')} (${N * SECONDS} expected a leg)`);
  }
  const body = [
    `${N} forked children (node, nothing loaded), each with a ${JSON.stringify(REPLY).length}-byte stats reply. Asked: the parent asks every child once a second in groups that take turns, and each answers at once (what nodesup's poll does). Pushed: each child sends the same reply by itself once a second at its group's turn, and the parent only reads. ${pairs} pairs of ${SECONDS} s legs per group count, in turns (asked first in odd pairs), on the same children. CPU: time on a CPU from \`/proc/<pid>/schedstat\` over wall time, % of one core.`,
    '',
    table(['groups', 'leg', 'legs', 'parent CPU, % of a core (mean)', 'children CPU, % of a core (sum, mean)'], rows),
    '',
    ...lines,
  ].join('\n');
  publish(opts, 'ipc-floor-pushed', 'The poll\'s floor, asked against pushed', body);
}

async function main() {
  const file = path.join(scratch(), 'child.cjs');
  fs.writeFileSync(file, CHILD);
  const kids = Array.from({ length: N }, () => fork(file, [], { stdio: 'ignore' }));
  for (const k of kids) own(k.pid);
  try {
    await delay(3000);
    if (opts.pushed) return await pushedVersusAsked(kids);
    const legs = [];
    for (const g of GROUPS) {
      const r = await leg(kids, g);
      legs.push(r);
      process.stderr.write(`${N} children, ${g} group(s): parent ${fx(r.parent, 2)} % of a core, children ${fx(r.kids, 1)} %, round trip p50 ${fx(r.p50, 1)} p99 ${fx(r.p99, 1)} ms\n`);
    }
    const body = [
      `${N} forked children (node, nothing loaded) that answer a ${JSON.stringify(REPLY).length}-byte stats reply as soon as asked; the parent asks every child once a second, all at once or in groups that take turns (group k at k/groups of the second), for ${SECONDS} s per leg, all legs on the same children. CPU: time on a CPU from \`/proc/<pid>/schedstat\` over wall time, % of one core. Round trip: from the first request of a round to its last reply.`,
      '',
      table(['groups', 'rounds', 'parent CPU, % of a core', 'children CPU, % of a core (sum)', 'child CPU per answer, ms', 'round trip p50 / p99 / max ms'], legs.map((r) => [
        r.groups, r.rounds, fx(r.parent, 2), fx(r.kids, 1), fx(r.perWake, 2), `${fx(r.p50, 1)} / ${fx(r.p99, 1)} / ${fx(r.max, 1)}`,
      ])),
      '',
      'This is the floor under nodesup\'s poll at this many workers on this host: the channel\'s writes and reads, and waking an idle process, which costs it the "child CPU per answer" whatever it then does.',
    ].join('\n');
    publish(opts, 'ipc-floor', 'The floor under the poll: node IPC to idle processes', body);
  } finally {
    for (const k of kids) { k.kill('SIGKILL'); disown(k.pid); }
  }
}

main().catch((err) => { process.stderr.write(`ipc-floor: ${err.stack}\n`); process.exitCode = 1; });
