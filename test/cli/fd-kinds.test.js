// An fd leak through unref'd keep-alive sockets (an http.Agent per request), end to end: Node's
// active resources stay flat (idle keep-alive sockets are unref'd), the fds climb, and the leak is
// named by what the fds are, read from /proc: TCP connections to the upstream, ESTABLISHED.
import test from 'ava';
import path from 'node:path';
import { startCli, freePort, ROOT, writeConfig } from '../helpers/cli.js';

test('an http.Agent per request: the leak names the sockets to the upstream, which the resource types do not show', async (t) => {
  const cfg = writeConfig(t, { workers: 1, metrics: false });
  const run = startCli(t, [path.join(ROOT, 'bench/corpus/agent-per-request.js'), '-c', cfg], { env: { PORT: String(await freePort()), CALLS_PER_SEC: '6' } });
  const ready = await run.waitFor((e) => e.event === 'worker.ready');
  const ev = await run.waitFor((e) => e.event === 'leak.warning' && e.kind === 'handles', { timeout: 180_000, what: 'the fd leak named' });
  t.log(ev.msg);
  t.is(ev.pid, ready.pid);
  // Only fds grow: the unref'd sockets are not among the active resources.
  t.deepEqual(ev.types.map((x) => x.type), ['fd']);
  const kinds = ev.types[0].kinds ?? [];
  const toUpstream = kinds.find((k) => /^TCP to 127\.0\.0\.1:\d+, ESTABLISHED$/.test(k.what));
  t.truthy(toUpstream, JSON.stringify(kinds));
  t.true(toUpstream.perSec >= 3 && toUpstream.perSec <= 12, `${toUpstream.perSec}/s for 6 calls a second`);
  t.regex(ev.summary, /^fd \+[\d.]+\/s: .*TCP to 127\.0\.0\.1:\d+, ESTABLISHED \+[\d.]+\/s \(\d+ open\)/);
});
