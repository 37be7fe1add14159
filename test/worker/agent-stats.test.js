// The agent's STATS reply, asked over the real IPC channel of a forked worker: a plain poll lists
// the main thread's children only and leaves smaps_rollup alone; a full read (one poll in ten)
// brings the worker's own smaps_rollup and every thread's children, so the primary reads neither.
import test from 'ava';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { KIND, message, isOurs } from '../../src/protocol.js';
import { readMemory } from '../../src/proc/memory.js';

const agent = pathToFileURL(fileURLToPath(new URL('../../src/worker/agent.js', import.meta.url))).href;
const app = fileURLToPath(new URL('../fixtures/agent/thread-child.js', import.meta.url));

test('STATS: a full read carries the worker\'s own smaps_rollup and a worker_thread\'s child; a plain poll neither', async (t) => {
  // NODE_UNIQUE_ID makes the child a cluster worker, which is what the agent answers as.
  const child = fork(app, [], { execArgv: ['--import', agent], env: { ...process.env, NODE_UNIQUE_ID: '1' }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let grandchild = null;
  t.teardown(() => {
    child.kill('SIGKILL');
    if (grandchild) try { process.kill(grandchild, 'SIGKILL'); } catch {}
  });
  const [line] = await once(child.stdout, 'data');
  grandchild = Number(String(line).trim());
  t.true(grandchild > 0);

  let seq = 0;
  const ask = async (fields) => {
    const id = ++seq;
    const reply = new Promise((resolve) => {
      const on = (msg) => {
        if (isOurs(msg) && msg.kind === KIND.REPLY && msg.id === id) { child.off('internalMessage', on); resolve(msg.result); }
      };
      child.on('internalMessage', on);
    });
    child.send(message(KIND.STATS, { id, ...fields }));
    return reply;
  };

  const plain = await ask({});
  t.false(plain.allThreads);
  t.is(plain.memory, undefined, 'no smaps_rollup read on a plain poll');
  t.false(plain.childPids.includes(grandchild), 'the thread\'s child is not in the main thread\'s list');

  const full = await ask({ full: true });
  t.true(full.allThreads);
  t.true(full.childPids.includes(grandchild), 'every thread\'s children listed');
  const seen = readMemory(child.pid);
  t.true(full.memory.pss > 0 && full.memory.pss <= full.memory.rss && full.memory.anon > 0);
  t.true(Math.abs(full.memory.rss - seen.rss) < 16 * 2 ** 20, `agent rss ${full.memory.rss}, /proc ${seen.rss}`);
  t.true(Math.abs(full.memory.pss - seen.pss) < 16 * 2 ** 20, `agent pss ${full.memory.pss}, /proc ${seen.pss}`);
});
