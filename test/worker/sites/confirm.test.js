// A confirmation point end to end but for the tick: the decision's probe on a recorded heap leak,
// sent by the heap prober over the real IPC channel to a forked worker's agent, right after a full
// GC the worker ran by itself. The point must be the heap after a GC forced then, not the one the
// worker's own GC left, which still held what the worker dropped since.
import test from 'ava';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { KIND, message, isOurs } from '../../../src/protocol.js';
import { decide, newPolicyState } from '../../../src/core/policy/decide.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { HeapProber } from '../../../src/primary/recycle/heap-prober.js';
import { parseDuration, parseRate } from '../../../src/units.js';

const agent = pathToFileURL(fileURLToPath(new URL('../../../src/worker/agent.js', import.meta.url))).href;
const app = fileURLToPath(new URL('../../fixtures/agent/own-full-gc.js', import.meta.url));
const MiB = 2 ** 20;
const CONFIG = {
  pollInterval: 1000, workers: 1, unresponsive: { timeout: 15_000 },
  limits: { rss: null, heapUsed: null, native: null, totalRss: null, maxAge: null, maxRequests: null, jitter: 0, sustain: 0 },
  recycle: { maxConcurrent: 1, readyTimeout: 30_000, killTimeout: 10_000 },
  leak: { window: parseDuration('5m'), minGrowth: parseRate('1mb/min'), action: 'warn', warmUp: parseDuration('150s') },
};

/** The decision's first confirmation probe on a recorded heap leak. */
function firstProbe() {
  const series = JSON.parse(readFileSync(new URL('../../fixtures/series/real-heap-leak-fast.json', import.meta.url), 'utf8'));
  const window = new SampleWindow({ maxAgeMs: 600_000 });
  const view = { id: 1, slot: 0, pid: 7, startedAt: series[0].t, readyAt: series[0].t, lastReplyAt: 0, jitterDraw: 0, window };
  let state = newPolicyState(1);
  for (const s of series) {
    window.push({ agent: true, ...s });
    view.lastReplyAt = s.t;
    const r = decide(state, [view], s.t, { config: CONFIG, totalLimit: null, cgroupLimit: null });
    state = r.state;
    const probe = r.probes.find((p) => p.point);
    if (probe) return probe;
  }
  return null;
}

test('a confirmation point just after the worker\'s own full GC is a GC forced then: what the worker retains', async (t) => {
  const probe = firstProbe();
  t.truthy(probe, 'the recorded leak draws a probe');
  // NODE_UNIQUE_ID makes the child a cluster worker, which is what the agent answers as.
  const child = fork(app, [], { execArgv: ['--expose-gc', '--import', agent], env: { ...process.env, NODE_UNIQUE_ID: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  t.teardown(() => child.kill('SIGKILL'));
  let seq = 0;
  // The pool's part: a request over the channel, its reply by id.
  const pool = {
    request: (rec, kind, fields) => new Promise((resolve) => {
      const id = ++seq;
      const on = (msg) => {
        if (isOurs(msg) && msg.kind === KIND.REPLY && msg.id === id) { child.off('internalMessage', on); resolve(msg.ok ? msg.result : null); }
      };
      child.on('internalMessage', on);
      child.send(message(kind, { id, ...fields }));
    }),
  };
  const inbox = [];
  const prober = new HeapProber({ pool, inbox });

  const [ready] = await once(child, 'message');
  t.is(ready, 'ready');
  child.send('own-gc');
  const [own] = await once(child, 'message');
  t.true(own.held, 'the worker dropped what it held after its GC');
  await prober.probe({ pid: child.pid }, probe);
  const { point } = inbox[0];
  t.true(point.forced, 'a GC forced for the point');
  t.is(typeof point.pauseMs, 'number');
  t.true(point.heapAfter < own.heapAfterOwnGc - 10 * MiB,
    `point ${(point.heapAfter / MiB).toFixed(1)} MiB; the worker's own GC left ${(own.heapAfterOwnGc / MiB).toFixed(1)} MiB`);
});
