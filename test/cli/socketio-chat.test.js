// The socket.io example as documented: started with its own config, a polling and a websocket
// client in a room, sending with client `retries` through a reload: every message is
// acknowledged (none lost to the drain), each member hears the other, nobody meets an HTTP 400.
import test from 'ava';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startCli, runCli, freePort, ROOT } from '../helpers/cli.js';
import { sioClient, until } from '../helpers/sio.js';

const EXAMPLE = path.join(ROOT, 'examples/socketio-chat');

test('socketio-chat: through a reload every message sent with retries is acknowledged, both transports', async (t) => {
  t.timeout(120_000);
  const port = await freePort();
  const run = startCli(t, ['-c', path.join(EXAMPLE, 'supervisor.config.mjs')], { env: { PORT: String(port) } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });

  const members = ['polling', 'websocket'].map((transport) => {
    const c = sioClient(`http://127.0.0.1:${port}`, { transports: [transport], retries: 20, ackTimeout: 2000 });
    c.said = new Map();
    c.socket.on('said', (m) => c.said.set(m.id, m));
    c.socket.on('welcome', () => c.socket.emit('join', 'lobby'));
    return c;
  });
  t.teardown(() => { for (const c of members) c.socket.disconnect(); });
  await until(() => members.every((c) => c.socket.connected), 'both connected');

  let stopped = false;
  const acked = members.map(() => []);
  const failed = members.map(() => 0);
  const senders = members.map(async (c, i) => {
    for (let n = 0; !stopped; n++) {
      const msg = { id: randomUUID(), room: 'lobby', nick: `m${i}`, text: `message ${n}` };
      const r = await c.socket.emitWithAck('say', msg).catch(() => null);
      if (r?.ok) acked[i].push(msg.id);
      else failed[i]++;
      await new Promise((res) => setTimeout(res, 50));
    }
  });
  await until(() => acked.every((a) => a.length >= 5), 'messages flowing');
  const old = new Set((await run.status()).slots.map((s) => s.pid));
  const r = await runCli(['reload', 'socketio-chat'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(r.exitCode, 0, r.stderr);
  for (const e of run.events.filter((x) => x.event === 'worker.exit' && old.has(x.pid))) t.like(e, { forced: false });
  await until(() => members.every((c) => c.connects >= 2 && c.socket.connected), 'both reconnected');
  const after = acked.map((a) => a.length);
  await until(() => acked.every((a, i) => a.length >= after[i] + 5), 'messages flowing again');
  stopped = true;
  await Promise.all(senders);

  for (const [i, c] of members.entries()) {
    t.is(failed[i], 0, `member ${i}: no message failed`);
    t.is(c.http400, 0);
    // The other member heard this one's messages (those sent while both were in the room: most).
    const other = members[1 - i];
    t.true(acked[i].filter((id) => other.said.has(id)).length >= acked[i].length / 2, `member ${1 - i} heard member ${i}`);
  }
  t.log(`acknowledged ${acked.map((a) => a.length).join(' and ')} messages, reconnects ${members.map((c) => c.connects - 1).join(', ')}`);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});
