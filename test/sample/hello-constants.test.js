// The process's constants travel once, in the agent's hello, and still reach every Sample: a real
// pool forks a worker under a heap flag, and the poller's sample carries what its hello said.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { Pool } from '../../src/primary/lifecycle/pool.js';
import { pollOnce } from '../../src/primary/tick/poller.js';

const script = fileURLToPath(new URL('../fixtures/apps/http.js', import.meta.url));

test('a worker\'s heapLimit and gcFlags come with its hello and are in each sample polled from it', async (t) => {
  const config = {
    name: 'constants', script, args: [], env: { PORT: '0', NODE_OPTIONS: '' }, nodeArgs: ['--max-old-space-size=200'],
    workers: 1, pollInterval: 1000, leak: false, recycle: { killTimeout: 1000 },
  };
  const pool = new Pool({ config });
  const h = pool.spawn(0);
  t.teardown(() => { try { h.worker.process.kill('SIGKILL'); } catch {} });
  t.true(await pool.whenReady(h, 20_000), 'the worker started');

  // The old space's 200 MiB plus the young generation (Node 24 sizes it larger): far under the default of several GiB.
  t.true(h.facts.heapLimit > 190 * 2 ** 20 && h.facts.heapLimit < 2 ** 30, `hello heapLimit ${h.facts.heapLimit}`);
  t.deepEqual(h.facts.gcFlags, ['--max-old-space-size=200']);
  const [sample] = await pollOnce(pool, [h], { timeoutMs: 5000, now: Date.now });
  t.true(sample.agent, 'the agent answered');
  t.is(sample.heapLimit, h.facts.heapLimit);
  t.deepEqual(sample.gcFlags, ['--max-old-space-size=200']);
  t.true(sample.heapUsed > 0 && sample.heapUsed < sample.heapLimit);
  t.is(h.window.last(), sample, 'kept in the worker\'s window');
});
