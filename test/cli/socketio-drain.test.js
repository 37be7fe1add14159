// A socket.io app, unchanged, through a reload: the draining worker's pending long-polls are
// answered with engine.io's close packet, so the drain ends at once instead of at killTimeout, and
// every client reconnects to the new worker.
import test from 'ava';
import { startCli, runCli, app, freePort, writeConfig } from '../helpers/cli.js';
import { sioClient, until } from '../helpers/sio.js';

for (const transports of [['polling'], ['websocket']]) {
  test(`a drain closes ${transports[0]} sessions with engine.io's close: no forced kill, every client back`, async (t) => {
    t.timeout(120_000);
    const port = await freePort();
    const cfg = writeConfig(t, { workers: 1, metrics: false, recycle: { killTimeout: '20s' } });
    const run = startCli(t, [app('socketio.js'), '-c', cfg], { env: { PORT: String(port) } });
    const ready = await run.waitFor((e) => e.event === 'worker.ready', { what: 'worker ready' });
    const clients = Array.from({ length: 4 }, () => sioClient(`http://127.0.0.1:${port}`, { transports }));
    t.teardown(() => { for (const c of clients) c.socket.disconnect(); });
    await until(() => clients.every((c) => c.pids.length === 1), 'every client greeted');

    const r = await runCli(['reload'], { env: { NODESUP_RUN_DIR: run.runDir } });
    t.is(r.exitCode, 0, r.stderr);
    const exit = await run.waitFor((e) => e.event === 'worker.exit' && e.pid === ready.pid, { what: 'the old worker exit' });
    // Not forced: the drain ended by itself before killTimeout (20 s), so no kill asked what held it.
    t.like(exit, { planned: true, forced: false }, JSON.stringify(exit));
    t.false('heldBy' in exit, 'nothing held the worker to the kill');

    await until(() => clients.every((c) => c.pids.length === 2 && c.socket.connected), 'every client reconnected');
    const fresh = (await run.status()).slots[0].pid;
    for (const c of clients) {
      t.is(c.pids[1], fresh, 'greeted by the new worker');
      t.deepEqual(c.disconnects, ['transport close'], 'closed by the server, not by an error');
      t.is(c.http400, 0);
    }
    t.log(`${transports[0]}: drain ${exit.drainMs} ms`);
    run.child.kill('SIGTERM');
    t.is((await run.exited).exitCode, 0);
  });
}
