// What reload, recycle and stop print for a person, from the documents the supervisor answers with.
import test from 'ava';
import {
  reloadStartLine, slotLines, reloadSummary, reloadText, reloadDocument, recycleText, stderrExcerpt, stopWorkerLine, stopSummary,
} from '../../src/report/control-words.js';

const NODE_STDERR = [
  '/srv/app/releases/v2/server.js:1',
  "if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set');",
  '                                ^',
  '',
  'Error: DATABASE_URL is not set',
  '    at Object.<anonymous> (/srv/app/releases/v2/server.js:1:39)',
  '    at Module._compile (node:internal/modules/cjs/loader:1554:14)',
  '',
  'Node.js v22.14.0',
];

test('a reload as it happens: the start, a line per slot, the failure with its error, and where it stopped', (t) => {
  const doc = {
    result: 'partial', workers: 4, maxConcurrent: 1, reloaded: 1, oldCode: 3, serving: 4, stoppedAt: 1, stoppedBy: 'failure', pinned: null,
    results: [
      { slot: 0, result: 'recycled', oldPid: 4101, newPid: 4188, readyMs: 400, drainedMs: 1100 },
      { slot: 1, result: 'failed', oldPid: 4102, newPid: 4190, failure: { why: 'exited', code: 1, signal: null, stderr: NODE_STDERR } },
    ],
  };
  t.deepEqual(reloadText(doc), [
    'reloading 4 workers, one at a time',
    '  slot 0  pid 4101 → 4188  ready in 0.4 s, old worker drained in 1.1 s',
    '  slot 1  pid 4102 → 4190  failed: the new worker exited with code 1 before it was ready',
    '          Error: DATABASE_URL is not set',
    '              at Object.<anonymous> (/srv/app/releases/v2/server.js:1:39)',
    'stopped at slot 1: 1 of 4 workers run the new code, 3 still run the old one (all serving)',
  ]);
});

test('the other ways a slot fails or is skipped, and a worker killed at its drain', (t) => {
  t.deepEqual(slotLines({ slot: 2, result: 'failed', oldPid: 1, newPid: 2, failure: { why: 'timeout', readyTimeoutMs: 30_000, stderr: [] } }),
    ['  slot 2  pid 1 → 2  failed: the new worker was not ready within 30 s (recycle.readyTimeout)']);
  t.deepEqual(slotLines({ slot: 0, result: 'failed', oldPid: 1, newPid: 2, failure: { why: 'exited', code: null, signal: 'SIGKILL', stderr: [] } }),
    ['  slot 0  pid 1 → 2  failed: the new worker was killed by SIGKILL before it was ready']);
  t.deepEqual(slotLines({ slot: 3, result: 'skipped', oldPid: null, newPid: null, failure: { why: 'no-ready-worker' } }),
    ['  slot 3  skipped: no ready worker to replace (it is starting, or restarting after a crash)']);
  t.deepEqual(slotLines({ slot: 0, result: 'recycled', oldPid: 1, newPid: 2, readyMs: 300, drainedMs: 10_000, forced: true, heldBy: { openRequests: 2, requests: [{ method: 'GET', path: '/slow', ageMs: 9800 }] } }),
    ['  slot 0  pid 1 → 2  ready in 0.3 s, old worker killed after 10.0 s (held by 2 open requests (oldest GET /slow 9.8 s))']);
});

test('a failed worker\'s stderr: the error and the app\'s frame; without a stack, its last lines', (t) => {
  t.deepEqual(stderrExcerpt(NODE_STDERR), ['Error: DATABASE_URL is not set', '    at Object.<anonymous> (/srv/app/releases/v2/server.js:1:39)']);
  const esm = ['file:///srv/app/server.mjs:3', 'Error: boom', '    at node:internal/modules/esm/x:1:1', '    at file:///srv/app/server.mjs:3:7'];
  t.deepEqual(stderrExcerpt(esm), ['Error: boom', '    at file:///srv/app/server.mjs:3:7']);
  t.deepEqual(stderrExcerpt(['starting', 'config: DATABASE_URL missing', 'exiting', '']), ['starting', 'config: DATABASE_URL missing', 'exiting']);
  t.deepEqual(stderrExcerpt([]), []);
});

test('summaries: all done, stopped by a stop, gaps, and the code restarts start after a failure', (t) => {
  t.deepEqual(reloadSummary({ result: 'ok', workers: 2, reloaded: 2, durationMs: 2300 }), ['done: 2 of 2 workers run the new code (2.3 s)']);
  t.deepEqual(reloadSummary({ result: 'partial', workers: 4, reloaded: 1, stoppedBy: 'stop' }), ["stopped by the supervisor's stop: 1 of 4 workers run the new code, 3 did not get it"]);
  t.deepEqual(reloadSummary({ result: 'partial', workers: 3, reloaded: 2, serving: 2, stoppedBy: null }), ['not every worker was replaced: 2 of 3 workers run the new code, 1 still runs the old one (2 of 3 serving)']);
  t.deepEqual(reloadSummary({ result: 'failed', workers: 2, reloaded: 0, serving: 2, stoppedAt: 0, stoppedBy: 'failure', pinned: { script: '/srv/app/releases/v1/server.js' } }), [
    'stopped at slot 0: 0 of 2 workers run the new code, 2 still run the old one (all serving)',
    'until a reload succeeds, crash restarts and recycles start the code that serves: /srv/app/releases/v1/server.js',
  ]);
  t.is(reloadStartLine({ workers: 8, maxConcurrent: 2 }), 'reloading 8 workers, 2 at a time');
});

test('an older supervisor\'s reply: what it says, and that it says less', (t) => {
  const old = { reloaded: 1, results: [{ slot: 0, reason: 'reload', result: 'recycled' }, { slot: 1, reason: 'reload', result: 'failed' }] };
  t.like(reloadDocument(old), { result: 'partial', workers: 2, reloaded: 1 });
  t.is(reloadDocument({ reloaded: 2, results: [{ slot: 0, result: 'recycled' }, { slot: 1, result: 'recycled' }] }).result, 'ok');
  t.deepEqual(reloadText(old, { olderSupervisor: true }), [
    'reloading 2 workers, one at a time',
    '  slot 0  replaced',
    '  slot 1  failed: the new worker was not ready (an older supervisor does not say why)',
    'not every worker was replaced: 1 of 2 workers run the new code, 1 still runs the old one',
    '(the supervisor runs an older nodesup: no progress, pids or reasons)',
  ]);
  t.deepEqual(recycleText({ slot: 1, reason: 'manual', result: 'failed' }, { olderSupervisor: true }).at(-1), '(the supervisor runs an older nodesup: no pids or reasons)');
});

test('a stop: each worker gone, and how many had to be killed', (t) => {
  t.is(stopWorkerLine({ slot: 0, pid: 7, drainMs: 300, forced: false }), '  slot 0  pid 7  drained in 0.3 s');
  t.is(stopWorkerLine({ slot: 1, pid: 8, drainMs: 10_000, forced: true, heldBy: { upgraded: 1 } }), '  slot 1  pid 8  killed after 10.0 s (held by 1 upgraded socket)');
  t.is(stopSummary({ workers: [{ forced: false }, { forced: true }], durationMs: 10_400 }), 'stopped in 10.4 s: 1 of 2 workers had to be killed at recycle.killTimeout');
  t.is(stopSummary({ workers: [], durationMs: 50 }), 'stopped in 0.1 s');
});

test('the status screen says a reload\'s outcome in the same words, counting every worker, not only the slots it reached', async (t) => {
  const { actionOutcome } = await import('../../src/report/status/action-outcome.js');
  const doc = { result: 'failed', workers: 3, reloaded: 0, oldCode: 3, serving: 3, stoppedAt: 0, stoppedBy: 'failure', results: [{ slot: 0, result: 'failed' }] };
  t.is(actionOutcome('reload', doc), 'reload: stopped at slot 0: 0 of 3 workers run the new code, 3 still run the old one (all serving)');
  t.is(actionOutcome('reload', { reloaded: 2, results: [{ slot: 0, result: 'recycled' }, { slot: 1, result: 'recycled' }] }), 'reload: 2 of 2 slots replaced', 'an older supervisor\'s reply');
});
