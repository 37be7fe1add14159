// A socket.io app as a new user starts it: no config, its package.json depends on socket.io. nodesup
// decides balance: 'sticky' and says so; polling clients (socket.io's first transport) meet no
// HTTP 400 "Session ID unknown" and every acknowledged message comes back. A config that chooses
// 'round-robin' keeps it.
import test from 'ava';
import path from 'node:path';
import { startCli, app, freePort, writeConfig } from '../helpers/cli.js';
import { sioClient, until } from '../helpers/sio.js';

const APP = app('socketio-app/server.js');
const CLIENTS = 4;
const MESSAGES = 25;
const isBalance = (e) => e.event === 'config.default' && e.key === 'balance';

test('package.json depends on socket.io, no balance set: sticky, said once; polling clients get no HTTP 400 and every ack', async (t) => {
  t.timeout(90_000);
  const port = await freePort();
  const run = startCli(t, [APP, '-w', '2', '--metrics', 'false'], { env: { PORT: String(port) } });
  const said = await run.waitFor(isBalance, { what: 'the balance said' });
  t.like(said, { value: 'sticky', dependency: 'socket.io', packageJson: path.join(path.dirname(APP), 'package.json') });
  t.regex(said.msg, /^balance: 'sticky', since .*package\.json depends on socket\.io .*; set balance: 'round-robin' to choose$/);
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });

  const clients = Array.from({ length: CLIENTS }, () => sioClient(`http://127.0.0.1:${port}`, { transports: ['polling'], ackTimeout: 5000 }));
  t.teardown(() => { for (const c of clients) c.socket.disconnect(); });
  await until(() => clients.every((c) => c.pids.length >= 1), 'every client greeted');
  // Each client's requests alternate a long-poll GET and a POST per message: under round-robin
  // they land on either worker, and the one without the session answers 400.
  const acked = await Promise.all(clients.map(async (c) => {
    let n = 0;
    for (let i = 0; i < MESSAGES; i++) if ((await c.socket.emitWithAck('echo', i).catch(() => null))?.msg === i) n++;
    return n;
  }));
  t.deepEqual(acked, clients.map(() => MESSAGES), 'every message acknowledged');
  t.deepEqual(clients.map((c) => c.http400), clients.map(() => 0), 'no HTTP 400');
  t.deepEqual(clients.flatMap((c) => c.errors), []);
  t.is(run.count((e) => e.code === 'sticky-sessions'), 0, 'nothing to advise');
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
  t.is(run.count(isBalance), 1, 'said once');
});

test('the same app with balance: \'round-robin\' in its config keeps round-robin: nothing decided, the advice instead', async (t) => {
  t.timeout(90_000);
  const port = await freePort();
  const cfg = writeConfig(t, { workers: 2, metrics: false, balance: 'round-robin' });
  const run = startCli(t, [APP, '-c', cfg], { env: { PORT: String(port) } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });
  t.is(run.count(isBalance), 0, 'the config chose');
  const clients = Array.from({ length: CLIENTS }, () => sioClient(`http://127.0.0.1:${port}`, { transports: ['polling'] }));
  t.teardown(() => { for (const c of clients) c.socket.disconnect(); });
  const advice = await run.waitFor((e) => e.event === 'worker.advice' && e.code === 'sticky-sessions', { what: 'the sticky-sessions advice' });
  t.regex(advice.msg, /round-robin workers/);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});
