// What keeps a draining worker alive: its open requests and its upgraded sockets. The primary asks
// just before a forced kill, so the worker.exit event can say what held it rather than only that
// it was killed. Paths lose their query string (tokens and session ids ride there).

const MAX_LISTED = 20; // the oldest ones: a thousand pending requests are one fact, not a thousand

// When a request started, on its response: the one thing held adds per request. Which responses
// are still open is long-lived.js's set (one close listener per request, not two): the hot path
// of every request pays a property write here, nothing more.
const STARTED = Symbol('nodesup.started');

/** @param {() => Iterable<import('node:http').ServerResponse>} openResponses  the responses not closed yet */
export function heldTable(openResponses) {
  const upgraded = new Set();
  return {
    /** A request started. */
    request(req, res) {
      res[STARTED] = Date.now();
    },
    /** An upgraded socket (any protocol) the app took over; forgotten when it closes. */
    upgrade(socket) {
      upgraded.add(socket);
      socket.once('close', () => upgraded.delete(socket));
    },
    /** @returns {{requests:{method:string,path:string,ageMs:number}[], openRequests:number, upgraded:number}} */
    snapshot() {
      const now = Date.now();
      const open = [...openResponses()].filter((res) => res[STARTED] !== undefined);
      const list = open.sort((a, b) => a[STARTED] - b[STARTED]).slice(0, MAX_LISTED);
      return {
        requests: list.map((res) => ({ method: res.req?.method ?? '?', path: String(res.req?.url ?? '').split('?')[0], ageMs: now - res[STARTED] })),
        openRequests: open.length,
        upgraded: upgraded.size,
      };
    },
  };
}
