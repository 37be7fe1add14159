// What keeps a draining worker alive: its open requests and its upgraded sockets. The primary asks
// just before a forced kill, so the worker.exit event can say what held it rather than only that
// it was killed. Paths lose their query string (tokens and session ids ride there).

const MAX_LISTED = 20; // the oldest ones: a thousand pending requests are one fact, not a thousand

// Which responses are still open, and since when, is long-lived.js's to say (read from its
// sockets when asked, nothing written on the app's objects): held adds nothing per request.

/** @param {() => Iterable<[import('node:http').ServerResponse, number]>} openResponses  the responses not finished yet, with their start times */
export function heldTable(openResponses) {
  const upgraded = new Set();
  return {
    /** An upgraded socket (any protocol) the app took over; forgotten when it closes. */
    upgrade(socket) {
      upgraded.add(socket);
      socket.once('close', () => upgraded.delete(socket));
    },
    /** @returns {{requests:{method:string,path:string,ageMs:number}[], openRequests:number, upgraded:number}} */
    snapshot() {
      const now = Date.now();
      const open = [...openResponses()];
      const list = open.sort((a, b) => a[1] - b[1]).slice(0, MAX_LISTED);
      return {
        requests: list.map(([res, at]) => ({ method: res.req?.method ?? '?', path: String(res.req?.url ?? '').split('?')[0], ageMs: now - at })),
        openRequests: open.length,
        upgraded: upgraded.size,
      };
    },
  };
}
