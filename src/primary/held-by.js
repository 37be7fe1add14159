// Just before a forced kill, the worker's agent is asked what held it (held.js): the exit event
// then names the open requests (method, path, age) and upgraded sockets that outlived the drain.
import { KIND } from '../protocol.js';

const ASK_TIMEOUT_MS = 1000; // a worker whose loop is blocked does not answer: the kill goes ahead

/** What holds h open, or null when its agent does not answer in time. */
export function askHeldBy(pool, h) {
  return pool.request(h, KIND.HELD, {}, ASK_TIMEOUT_MS).catch(() => null);
}

/** One short phrase for the exit's log line: "held by 3 requests (oldest GET /socket.io/ 9.8 s), 1 upgraded socket". */
export function describeHeldBy(held) {
  if (!held) return '';
  const parts = [];
  const n = held.openRequests ?? held.requests.length;
  if (n) {
    const o = held.requests[0];
    parts.push(`${n} open request${n === 1 ? '' : 's'}${o ? ` (oldest ${o.method} ${o.path} ${(o.ageMs / 1000).toFixed(1)} s)` : ''}`);
  }
  if (held.upgraded) parts.push(`${held.upgraded} upgraded socket${held.upgraded === 1 ? '' : 's'}`);
  return parts.length ? `, held by ${parts.join(', ')}` : ', held by nothing the agent sees (timers, other handles)';
}
