// A socket.io app that long-polls over round-robin workers is told, once, why its clients keep
// failing (HTTP 400 "Session ID unknown") and what to set.
import test from 'ava';
import { startCli, app, freePort, writeConfig } from '../helpers/cli.js';
import { sioClient } from '../helpers/sio.js';

test('long-polling without sticky sessions: one advice line naming the HTTP 400 and balance: sticky', async (t) => {
  t.timeout(90_000);
  const port = await freePort();
  const cfg = writeConfig(t, { workers: 2, metrics: false });
  const run = startCli(t, [app('socketio.js'), '-c', cfg], { env: { PORT: String(port) } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  const clients = Array.from({ length: 4 }, () => sioClient(`http://127.0.0.1:${port}`, { transports: ['polling'] }));
  t.teardown(() => { for (const c of clients) c.socket.disconnect(); });
  const advice = await run.waitFor((e) => e.event === 'worker.advice' && e.code === 'sticky-sessions', { what: 'the advice' });
  t.regex(advice.msg, /HTTP 400 "Session ID unknown"/);
  t.regex(advice.msg, /balance: 'sticky'/);
  t.true([0, 1].includes(advice.slot), `the slot that saw it: ${advice.slot}`);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
  t.is(run.count((e) => e.code === 'sticky-sessions'), 1, 'once, though every worker served engine.io');
});
