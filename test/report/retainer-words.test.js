// What holds a leak, in words: a holder as the analyser names it, its share of the growth, and
// each outcome of a drained worker's snapshot.
import test from 'ava';
import { describeHolder, describeHeld, describeRetainers } from '../../src/report/retainer-words.js';

const MiB = 1024 * 1024;
const held = [{ bytes: 40 * MiB, share: 0.93, count: 12004, type: 'IncomingMessage', path: ['(module) app.js', 'recentRequests', 'Array'], holder: { name: 'recentRequests', file: 'app.js', line: 11 } }];

test('a holder: its name, what it holds, where it is declared, its package', (t) => {
  t.is(describeHolder(held[0]), 'recentRequests (Array of 12,004 IncomingMessage) declared at app.js:11');
  t.is(describeHolder({ count: 40, type: 'Object', path: ['(module) index.js', 'store', 'Map'], holder: { name: 'cache.store', file: 'node_modules/node-cache/index.js', line: 20, package: 'node-cache@5.1.2' } }),
    'cache.store (Map of 40 Object) declared at node_modules/node-cache/index.js:20 in node-cache@5.1.2');
});

test('the first holder with its share; a share far past the growth is said in bytes', (t) => {
  t.is(describeHeld(held), '93 % held by recentRequests (Array of 12,004 IncomingMessage) declared at app.js:11');
  t.is(describeHeld([{ ...held[0], share: 4 }]), '40.0 MiB held by recentRequests (Array of 12,004 IncomingMessage) declared at app.js:11');
  t.is(describeHeld([]), 'no holder of the growth found');
});

test('worker.retainers: analysed, refused for room (under memory.oom.group), not analysed', (t) => {
  t.is(describeRetainers({ taken: true, held, heapBytes: 64 * MiB, snapshotMs: 2400, analysisMs: 900 }),
    '93 % held by recentRequests (Array of 12,004 IncomingMessage) declared at app.js:11 (snapshot of 64.0 MiB of heap: written in 2.4 s, read in 0.9 s)');
  t.is(describeRetainers({ taken: false, why: 'memory', needBytes: 2048 * MiB, haveBytes: 300 * MiB, oomGroup: true }),
    'no heap snapshot (memory: needs ~2.0 GiB, 300 MiB free (twice the peak: memory.oom.group is 1))');
  t.is(describeRetainers({ taken: true, analysed: false, snapshotMs: 1000, error: 'NODESUP_ERR_SNAPSHOT: truncated' }), 'heap snapshot written in 1.0 s, not analysed: NODESUP_ERR_SNAPSHOT: truncated');
});
