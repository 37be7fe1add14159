// What keeps a draining worker alive: its open requests and its upgraded sockets. The primary asks
// just before a forced kill, so the worker.exit event can say what held it rather than only that
// it was killed. Paths lose their query string (tokens and session ids ride there).

const MAX_LISTED = 20; // the oldest ones: a thousand pending requests are one fact, not a thousand

export function heldTable() {
  /** @type {Map<object, {method:string, url:string, at:number}>} the query is cut when asked, not per request */
  const requests = new Map();
  const upgraded = new Set();
  return {
    /** A request started; forgotten when its response closes. */
    request(req, res) {
      requests.set(res, { method: req.method, url: req.url, at: Date.now() });
      res.once('close', () => requests.delete(res));
    },
    /** An upgraded socket (any protocol) the app took over; forgotten when it closes. */
    upgrade(socket) {
      upgraded.add(socket);
      socket.once('close', () => upgraded.delete(socket));
    },
    /** @returns {{requests:{method:string,path:string,ageMs:number}[], openRequests:number, upgraded:number}} */
    snapshot() {
      const now = Date.now();
      const list = [...requests.values()].sort((a, b) => a.at - b.at).slice(0, MAX_LISTED);
      return {
        requests: list.map((r) => ({ method: r.method, path: String(r.url ?? '').split('?')[0], ageMs: now - r.at })),
        openRequests: requests.size,
        upgraded: upgraded.size,
      };
    },
  };
}
