// Whether a heap snapshot may be taken: the room it needs from the measured cost (the writer's
// peak, the analyser's), what is short when it is refused, and more room where memory.oom.group
// makes a miss cost the whole pod.
import test from 'ava';
import { snapshotRoom, SNAPSHOT_COST as C } from '../../../src/core/policy/snapshot-room.js';
import { BUDGET } from '../../../src/core/policy/memory-budget.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const heap = 100 * MiB;
const need = heap * C.write; // the writer's peak is the larger at 100 MiB of heap

test('snapshotRoom: room for the writer\'s peak; the file\'s size said', (t) => {
  t.deepEqual(snapshotRoom({ heapUsed: heap, memoryHeadroom: 4 * GiB, diskFree: 10 * GiB }), { ok: true, need, fileBytes: heap * C.file });
});

test('snapshotRoom: refused with what is short, and by how much, when memory or disk is; unknown budgets do not refuse', (t) => {
  t.deepEqual(snapshotRoom({ heapUsed: heap, memoryHeadroom: GiB, diskFree: null }), { ok: false, need, code: 'memory', needBytes: need, haveBytes: GiB });
  t.like(snapshotRoom({ heapUsed: heap, memoryHeadroom: -5 * MiB, diskFree: null }), { ok: false, code: 'memory', haveBytes: 0 }, 'over the limit already: none left');
  t.like(snapshotRoom({ heapUsed: heap, memoryHeadroom: null, diskFree: 150 * MiB }), { ok: false, code: 'disk', needBytes: 1.25 * heap * C.file, haveBytes: 150 * MiB });
  t.true(snapshotRoom({ heapUsed: heap, memoryHeadroom: null, diskFree: null }).ok);
  t.like(snapshotRoom({ heapUsed: null, memoryHeadroom: GiB, diskFree: GiB }), { ok: false, code: 'heap-unknown' });
});

test('snapshotRoom: under memory.oom.group a miss costs the pod: twice the room, and the refusal says why', (t) => {
  const room = 2 * GiB;
  t.true(snapshotRoom({ heapUsed: heap, memoryHeadroom: room, diskFree: null, oomGroup: false }).ok);
  t.like(snapshotRoom({ heapUsed: heap, memoryHeadroom: room, diskFree: null, oomGroup: true }), { ok: false, code: 'memory', needBytes: need * C.oomGroup, oomGroup: true });
});

test('snapshotRoom: replacements that may start meanwhile share the budget', (t) => {
  t.is(snapshotRoom({ heapUsed: heap, memoryHeadroom: null, diskFree: null, replacements: 2 }).need, need + 2 * BUDGET.replacement);
});

test('snapshotRoom: a small heap still needs the analyser\'s own floor', (t) => {
  const small = MiB;
  t.is(snapshotRoom({ heapUsed: small, memoryHeadroom: null, diskFree: null }).need, Math.ceil(small * C.file * C.analyse + C.analyseFloor));
});
