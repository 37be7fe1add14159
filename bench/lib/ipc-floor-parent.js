// The IPC floor as a process of its own, to be measured the way a primary is (CPU from
// /proc/<pid>/stat while it runs): N forked children that answer an agent-sized reply at once, and
// a parent that asks them in groups that take turns over the poll interval, as nodesup's tick does:
// by default the groups are sized by nodesup's own rule (src/primary/tick/group-size.js, from how
// long each group took to answer), or held at a fixed size. Nothing else of nodesup runs here. The
// parent prints one NDJSON line, {"event":"floor.ready"}, once every child has answered, and
// {"event":"floor.group","size":S} whenever its group size changes; SIGTERM ends it and its children.
//   node bench/lib/ipc-floor-parent.js N [pollMs] [follow|SIZE]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { newGroupSize, nextGroupSize, pollGroups } from '../../src/primary/tick/group-size.js';

// A reply the size of an agent's, and its fields: what the primary's IPC parse has to read.
export const REPLY = {
  pid: 1, rss: 45e6, heapUsed: 5e6, heapTotal: 6e6, external: 1e6, arrayBuffers: 1e4, heapLimit: 4e9, heapPhysical: 6e6, heapFloor: 5e6,
  newSpace: 1e6, gcCount: 10, gcMs: 5.5, majorGcCount: 2, minorGcCount: 8, minorGcMs: 3, gcFlags: [], elu: 0.001, delayP50: 0.1,
  delayP99: 0.4, delayMax: 1, requests: 0, handles: 3, resources: { TCPServerWrap: 1, PipeWrap: 1, Timeout: 1 }, fds: 21, childPids: [],
  draining: false, threads: 0, threadsHeapUsed: 0, threadsHeapPhysical: 0,
};
// NODE_FLOOR_PUSH {on, offsetMs, everyMs}: send the reply unasked every everyMs from offsetMs on,
// until told off (bench/ipc-floor.js --pushed: what a sample the worker sends by itself costs).
export const CHILD = `const reply = (id) => process.send({ cmd: 'NODE_FLOOR_REPLY', id, ok: true, result: ${JSON.stringify(REPLY)} });
let push = null;
process.on('internalMessage', (m) => {
  if (m && m.cmd === 'NODE_FLOOR') reply(m.id);
  if (m && m.cmd === 'NODE_FLOOR_PUSH') {
    clearTimeout(push); clearInterval(push); push = null;
    if (m.on) push = setTimeout(() => { reply(0); push = setInterval(() => reply(0), m.everyMs); }, m.offsetMs);
  }
});
process.channel.ref(); // stay alive on the channel alone`;

// One listener per child for the whole run: the round in flight and what it still waits for.
const round = { id: 0, pending: 0, done: () => {} };
const onReply = (m) => { if (m?.cmd === 'NODE_FLOOR_REPLY' && m.id === round.id && --round.pending === 0) round.done(); };

/** Ask each child of group once and resolve when all have answered (or after timeoutMs). */
function ask(group, timeoutMs) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(), timeoutMs);
    round.id++;
    round.pending = group.length;
    round.done = () => { clearTimeout(timer); resolve(); };
    for (const k of group) k.send({ cmd: 'NODE_FLOOR', id: round.id });
  });
}

async function main() {
  const n = Number(process.argv[2]);
  const pollMs = Number(process.argv[3] ?? 1000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipc-floor-'));
  const file = path.join(dir, 'child.cjs');
  fs.writeFileSync(file, CHILD);
  const kids = Array.from({ length: n }, () => fork(file, [], { stdio: 'ignore' }));
  for (const k of kids) k.on('internalMessage', onReply);
  const end = () => {
    for (const k of kids) k.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', end);
  process.on('SIGINT', end);
  const fixed = process.argv[4] && process.argv[4] !== 'follow' ? Number(process.argv[4]) : null;
  let size = fixed === null ? newGroupSize() : { size: fixed, calm: 0 };
  await ask(kids, 15 * 60_000); // every child up and answering
  process.stdout.write(`${JSON.stringify({ event: 'floor.ready', children: n, groups: pollGroups(n, size.size) })}\n`);
  // Group g of the turns, one after another, a poll interval ÷ groups apart: every child once an interval.
  let index = -1;
  let slowest = 0;
  for (;;) {
    const of = pollGroups(n, size.size);
    index = (index + 1) % of;
    const started = performance.now();
    await ask(kids.filter((_, i) => i % of === index), Math.max(200, pollMs));
    const took = performance.now() - started;
    slowest = Math.max(slowest, took);
    if (fixed === null && index === of - 1) {
      const next = nextGroupSize(size, slowest, n);
      slowest = 0;
      if (next.size !== size.size) {
        index = -1;
        process.stdout.write(`${JSON.stringify({ event: 'floor.group', size: next.size })}\n`);
      }
      size = next;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, pollMs / of - took)));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
