// socket.io clients for end-to-end tests: each keeps what a user would look at (the worker that
// greeted it, how often it connected, why it was disconnected, the HTTP 400s it met).
import { io } from 'socket.io-client';

/** A client on `url` with the given transports; reconnects quickly, as a test wants. */
export function sioClient(url, { transports = ['polling', 'websocket'], ...opts } = {}) {
  const socket = io(url, { transports, reconnectionDelay: 100, reconnectionDelayMax: 500, ...opts });
  const c = { socket, pids: [], connects: 0, disconnects: [], http400: 0, heard: [], errors: [] };
  socket.on('hello', (pid) => c.pids.push(pid));
  socket.on('connect', () => c.connects++);
  socket.on('disconnect', (reason, details) => {
    c.disconnects.push(reason);
    if (details?.description === 400 || details?.context?.status === 400) c.http400++;
    if (reason !== 'transport close') c.errors.push({ at: Date.now(), reason, status: details?.description ?? null, body: String(details?.context?.responseText ?? '').slice(0, 100) });
  });
  socket.on('connect_error', (err) => {
    if (err?.description === 400 || err?.context?.status === 400) c.http400++;
    c.errors.push({ at: Date.now(), reason: err?.message, status: err?.description ?? null, body: String(err?.context?.responseText ?? '').slice(0, 100) });
  });
  socket.on('heard', (m) => c.heard.push(m));
  return c;
}

/** Resolves once pred() holds, checked every 50 ms; rejects after `timeout`. */
export async function until(pred, what, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
