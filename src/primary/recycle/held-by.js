// Just before a forced kill, the worker's agent is asked what held it (held.js): the exit event
// then names the open requests (method, path, age) and upgraded sockets that outlived the drain.
import { KIND } from '../../protocol.js';

const ASK_TIMEOUT_MS = 1000; // a worker whose loop is blocked does not answer: the kill goes ahead

/** What holds h open, or null when its agent does not answer in time. */
export function askHeldBy(pool, h) {
  return pool.request(h, KIND.HELD, {}, ASK_TIMEOUT_MS).catch(() => null);
}
