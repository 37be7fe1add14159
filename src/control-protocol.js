// The control socket's contract, one definition for both ends (primary/control-*.js serves it,
// cli/control-client.js speaks it): newline-delimited JSON, one request or reply per line.
//   request  {v, id, op, args}
//   reply    {v, id, ok: true, result} | {v, id, ok: false, error: {code, message}}

/** Protocol version; a peer of another version is refused with a message saying so. */
export const CONTROL_VERSION = 1;

/** Ops a client may send; `ping` needs no handler. */
export const OPS = Object.freeze(['status', 'reload', 'recycle', 'inspect', 'stop', 'ping', 'history']);

/** Bounds on what either end holds: a request line, and a reply (a snapshot is kilobytes). */
export const MAX_REQUEST_BYTES = 1024 * 1024;
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** One message as its line on the wire. */
export const frame = (msg) => `${JSON.stringify(msg)}\n`;

export const requestMessage = (id, op, args = {}) => ({ v: CONTROL_VERSION, id, op, args });
export const okReply = (id, result) => ({ v: CONTROL_VERSION, id, ok: true, result });
export const errorReply = (id, code, message) => ({ v: CONTROL_VERSION, id, ok: false, error: { code, message } });
