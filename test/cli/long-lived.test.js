// WebSockets and SSE streams at a drain, the app doing nothing special: every client gets a clean
// close (a 1001 close frame, the stream's end) before killTimeout, no worker is forced, each
// client reconnects to a serving worker at once, and every message sent before the close arrived.
import test from 'ava';
import http from 'node:http';
import WebSocket from 'ws';
import { startCli, runCli, app, freePort, writeConfig } from '../helpers/cli.js';

const CLIENTS = 4;

// A WebSocket client that reconnects on close and keeps, per connection, the server pid, the
// messages in order, and the close code.
function wsClient(url) {
  const conns = [];
  let stopped = false;
  const open = () => {
    const c = { pid: null, seq: [], code: null, reason: '', gapFree: true };
    conns.push(c);
    const ws = new WebSocket(url);
    c.ws = ws;
    ws.on('message', (data) => {
      const [pid, n] = String(data).split(' ').map(Number);
      c.pid ??= pid;
      if (n !== c.seq.length) c.gapFree = false;
      c.seq.push(n);
    });
    ws.on('close', (code) => { c.code = code; if (!stopped) open(); });
    ws.on('error', () => {});
  };
  open();
  return { conns, stop: () => { stopped = true; for (const c of conns) c.ws.terminate(); } };
}

// An SSE client (plain http, as EventSource does it) that reconnects when the stream ends.
function sseClient(port) {
  const conns = [];
  let stopped = false;
  const open = () => {
    const c = { pid: null, seq: [], ended: null, gapFree: true };
    conns.push(c);
    c.req = http.get({ host: '127.0.0.1', port, path: '/events' }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buf += chunk;
        for (let i; (i = buf.indexOf('\n\n')) >= 0; buf = buf.slice(i + 2)) {
          const [pid, n] = buf.slice(6, i).split(' ').map(Number);
          c.pid ??= pid;
          if (n !== c.seq.length) c.gapFree = false;
          c.seq.push(n);
        }
      });
      res.on('end', () => { c.ended = 'end'; if (!stopped) open(); });
      res.on('aborted', () => { c.ended = 'aborted'; });
    });
    c.req.on('error', (err) => { c.ended ??= err.code; if (!stopped) setTimeout(open, 50); });
  };
  open();
  return { conns, stop: () => { stopped = true; for (const c of conns) c.req.destroy(); } };
}

test('a drain closes WebSockets with 1001 and ends SSE streams: no forced kill, every client back on a serving worker', async (t) => {
  t.timeout(120_000);
  const port = await freePort();
  const cfg = writeConfig(t, { workers: 2, metrics: false, recycle: { killTimeout: '20s' } });
  const run = startCli(t, [app('streams.js'), '-c', cfg], { env: { PORT: String(port) } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });
  const ws = Array.from({ length: CLIENTS }, () => wsClient(`ws://127.0.0.1:${port}/`));
  const sse = Array.from({ length: CLIENTS }, () => sseClient(port));
  t.teardown(() => { for (const c of [...ws, ...sse]) c.stop(); });
  const all = () => [...ws, ...sse];
  await until(() => all().every((c) => c.conns[0].seq.length >= 5), 'every client receiving');

  const old = new Set((await run.status()).slots.map((s) => s.pid));
  const t0 = Date.now();
  const r = await runCli(['reload'], { env: { NODESUP_RUN_DIR: run.runDir } });
  t.is(r.exitCode, 0, r.stderr);
  const exits = run.events.filter((e) => e.event === 'worker.exit' && old.has(e.pid));
  t.is(exits.length, 2, 'both old workers gone');
  // Not forced: each old worker left by itself, its streams closed by the agent, before killTimeout.
  for (const e of exits) t.like(e, { planned: true, forced: false }, `drained, not killed: ${JSON.stringify(e)}`);
  // And in order, slot by slot: the replacement was ready before the old worker left.
  for (const e of exits) {
    const readyAt = run.events.findIndex((x) => x.event === 'worker.ready' && x.slot === e.slot && !old.has(x.pid));
    t.true(readyAt >= 0 && readyAt < run.events.indexOf(e), `slot ${e.slot}: replacement ready (event ${readyAt}) before the old worker exited`);
  }

  // Every client whose worker went away was closed cleanly and is now on a worker that serves.
  await until(() => all().every((c) => !old.has(c.conns.at(-1).pid) && c.conns.at(-1).seq.length >= 3), 'every client reconnected to a new worker');
  const fresh = new Set((await run.status()).slots.map((s) => s.pid));
  for (const c of ws) {
    for (const conn of c.conns.filter((x) => old.has(x.pid))) {
      t.is(conn.code, 1001, 'a close frame, going away');
      t.true(conn.gapFree, 'no message lost or reordered before the close');
    }
    t.true(fresh.has(c.conns.at(-1).pid));
  }
  for (const c of sse) {
    for (const conn of c.conns.filter((x) => old.has(x.pid))) {
      t.is(conn.ended, 'end', 'the stream ended properly, not cut');
      t.true(conn.gapFree);
    }
    t.true(fresh.has(c.conns.at(-1).pid));
  }
  t.log(`reload with ${CLIENTS} WebSocket and ${CLIENTS} SSE clients: ${Date.now() - t0} ms, drains ${exits.map((e) => e.drainMs).join(', ')} ms`);
  run.child.kill('SIGTERM');
  t.is((await run.exited).exitCode, 0);
});

async function until(pred, what, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
