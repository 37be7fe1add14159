// engine.io (socket.io's transport) holds a long-polling client's GET open for up to pingInterval
// (25 s by default): at a drain server.close() waits for it and the worker is killed at
// killTimeout. engine.io has its own close, which answers the pending poll with a close packet
// (the client then reconnects elsewhere) and closes a WebSocket with its proper frame; the agent
// only needs to find the app's engine.io servers. They are never imported: at the first request
// that speaks engine.io the module the app loaded is looked up in the CommonJS cache (its ESM entry
// wraps the CommonJS build) and its request handlers are wrapped to remember the server they run on.
// Diagnostics and 'upgrade' both come before the app's listeners, so no server is missed.
import { createRequire } from 'node:module';

const SERVER_MODULE = /[\\/]engine\.io[\\/](build|lib)[\\/]server\.js$/;
const WRAPPED = Symbol.for('nodesup.engine-io.wrapped');

/**
 * True for a request of the engine.io protocol (`?EIO=4&transport=…`). Asked of every request
 * of an app without engine.io: a substring search rules nearly all out before the pattern runs.
 */
export const isEngineIo = (url) => typeof url === 'string' && url.includes('EIO=') && /[?&]EIO=\d/.test(url);

/** @param {{onEngine?: (engine: any) => void}} [o] told once of each engine.io server, before its first request */
export function engineIo({ onEngine = () => {} } = {}) {
  /** @type {Set<any>} every engine.io server that handled a request */
  const engines = new Set();
  const seen = (engine) => {
    if (engines.has(engine)) return;
    engines.add(engine);
    try { onEngine(engine); } catch { /* never the app's request */ }
  };
  let looked = false;

  const lookup = () => {
    if (looked) return;
    looked = true;
    const cache = createRequire(import.meta.url).cache;
    for (const [file, mod] of Object.entries(cache)) {
      if (!SERVER_MODULE.test(file)) continue;
      const proto = mod?.exports?.Server?.prototype;
      if (proto) for (const name of ['handleRequest', 'handleUpgrade']) wrap(proto, name, seen);
    }
  };

  return {
    /** A request or upgrade arrives (before the app sees it): find engine.io if it speaks it. */
    note(url) {
      if (!looked && isEngineIo(url)) lookup();
    },
    /** True once an engine.io server is known: its WebSockets are then closed by engine.io. */
    get known() {
      return engines.size > 0;
    },
    /** Every open engine.io session, of every server. */
    sessions() {
      const out = [];
      for (const e of engines) for (const s of Object.values(e.clients ?? {})) if (s?.readyState === 'open') out.push(s);
      return out;
    },
    /** How many sessions have not closed yet (open, or closing and waiting for their next poll). */
    pending() {
      let n = 0;
      for (const e of engines) n += Object.keys(e.clients ?? {}).length;
      return n;
    },
    /** engine.io's own close: buffered packets are flushed, then a pending poll gets the close packet. */
    close(session) {
      try { session.close(); } catch { /* a session closing on its own */ }
    },
  };
}

function wrap(proto, name, seen) {
  const orig = proto[name];
  if (typeof orig !== 'function' || orig[WRAPPED]) return;
  const wrapped = function (...args) {
    seen(this);
    return orig.apply(this, args);
  };
  wrapped[WRAPPED] = true;
  proto[name] = wrapped;
}
