// Which of the app's listen() calls a balance mode takes over: a fixed TCP port. Port 0, a path,
// a handle, an fd or an exclusive listen keeps its own listen, as cluster gives it.

/**
 * { port, host, backlog, options } of a listen on a fixed TCP port, null for anything else.
 * `options`: the object form's own fields (ipv6Only…), to keep on the listen that replaces it.
 * @param {any[]} args  listen()'s arguments
 * @returns {{port: number, host: string|undefined, backlog: number|undefined, options: object}|null}
 */
export function tcpTarget(args) {
  const [a, b, c] = args;
  if (typeof a === 'number' || (typeof a === 'string' && /^\d+$/.test(a))) {
    const port = Number(a);
    if (!port) return null;
    return { port, host: typeof b === 'string' ? b : undefined, backlog: typeof c === 'number' ? c : undefined, options: {} };
  }
  if (a && typeof a === 'object' && a.port !== undefined && a.path === undefined && a.fd === undefined && a.handle === undefined && !a.exclusive) {
    const port = Number(a.port);
    if (!port) return null;
    return { port, host: a.host, backlog: a.backlog, options: a };
  }
  return null;
}

/** listen()'s callback, when the app passed one. */
export const listenCallback = (args) => (typeof args.at(-1) === 'function' ? args.at(-1) : undefined);
