// socket.io's cluster adapter under nodesup, the app unchanged (it calls createAdapter() as
// socket.io documents; nodesup plays setupPrimary()'s part): a broadcast from one worker reaches
// the clients of every worker, a room spans workers, and fetchSockets() counts them all.
import test from 'ava';
import { startCli, app, freePort, writeConfig } from '../helpers/cli.js';
import { sioClient, until } from '../helpers/sio.js';

test('io.emit() on one worker reaches websocket clients on every worker; a room spans workers', async (t) => {
  t.timeout(120_000);
  const port = await freePort();
  const cfg = writeConfig(t, { workers: 2, metrics: false });
  const run = startCli(t, [app('socketio.js'), '-c', cfg], { env: { PORT: String(port), SOCKETIO_CLUSTER: '1' } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });
  // Round-robin spreads connections: enough clients that both workers have some.
  const clients = [];
  t.teardown(() => { for (const c of clients) c.socket.disconnect(); });
  const pidsOf = () => new Set(clients.map((c) => c.pids[0]));
  while (pidsOf().size < 2 || clients.length < 4) {
    if (clients.length >= 40) throw new Error('40 clients, all on one worker');
    const c = sioClient(`http://127.0.0.1:${port}`, { transports: ['websocket'] });
    clients.push(c);
    await until(() => c.pids.length === 1, 'greeting');
  }
  const [a, b] = [...pidsOf()];
  const from = clients.find((c) => c.pids[0] === a);
  const shoutedOn = await from.socket.emitWithAck('shout', 'hi all');
  t.is(shoutedOn, a);
  await until(() => clients.every((c) => c.heard.length === 1), 'every client heard the shout');
  for (const c of clients) t.deepEqual(c.heard[0], { from: a, msg: 'hi all' });

  // fetchSockets(): a request to every other worker, each response routed back to the asker only.
  for (const c of [clients[0], clients.find((x) => x.pids[0] !== clients[0].pids[0])]) t.is(await c.socket.emitWithAck('count'), clients.length);

  // One client of each worker in a room; a message to the room from worker b reaches both.
  const inA = clients.find((c) => c.pids[0] === a);
  const inB = clients.find((c) => c.pids[0] === b);
  const said = [];
  for (const c of [inA, inB]) {
    c.socket.on('said', (m) => said.push({ on: c.pids[0], ...m }));
    await c.socket.emitWithAck('join', 'lobby');
  }
  await inB.socket.emitWithAck('say', { room: 'lobby', msg: 'hello lobby' });
  await until(() => said.length === 2, 'both room members heard');
  t.deepEqual(said.map((m) => m.on).sort(), [a, b].sort());
  t.true(said.every((m) => m.from === b && m.room === 'lobby'));
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});
