// The control socket's contract, one definition for both ends (server.js and connection.js serve
// it, client.js speaks it): newline-delimited JSON, one request or reply per line.
//   request  {v, id, op, args, accept?}
//   progress {v, id, progress: {type, …}}          (version 2, only to a client that accepts it)
//   reply    {v, id, ok: true, result} | {v, id, ok: false, error: {code, message}}
// Framing too is defined once, here: `frame` writes a line, `lineReader` reads them.
//
// Versions. 1: one reply per request; `stop` answers before it drains. 2: a request may carry
// `accept: ['progress']`, and a long one (`reload`, `stop`) then sends a progress line per step
// before its reply; `stop` answers once every worker is gone. During a deploy either side may be
// the older one: a version 2 server serves version 1 requests as version 1 did (replies carry the
// request's version); a version 1 server refuses a version 2 request before running anything,
// with a reply of version 1, and a version 2 client then sends it again as version 1.

/** The newest protocol version, which this side speaks. */
export const CONTROL_VERSION = 2;
/** The oldest version a server still serves. */
export const MIN_CONTROL_VERSION = 1;
/** What a version 2 client may accept beyond one reply. */
export const FEATURES = Object.freeze({ PROGRESS: 'progress' });

/** Ops a client may send; `ping` needs no handler. */
export const OPS = Object.freeze(['status', 'reload', 'recycle', 'inspect', 'stop', 'ping', 'history']);

/** Bounds on what either end holds: a request line, and a reply (a snapshot is kilobytes). */
export const MAX_REQUEST_BYTES = 1024 * 1024;
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;

const NL = 0x0a;
const CR = 0x0d;

/** One message as its line on the wire: the one line writer. */
export const frame = (msg) => `${JSON.stringify(msg)}\n`;

/**
 * The one line reader: feed it the socket's Buffer chunks; it calls `onLine(text)` for each whole
 * line, without its "\n" (or "\r\n": `nc -C` and telnet send those). Text is decoded only once a
 * line is whole, so a UTF-8 character split across chunks stays whole. A line longer than
 * `maxBytes` (complete or not) calls `onOverflow()` once, and everything after it is ignored: the
 * stream cannot be trusted to be back in step. Only the new bytes are scanned, so a reply of many
 * chunks costs one pass.
 * @param {{maxBytes:number, onLine:(line:string)=>void, onOverflow:()=>void}} o
 */
export function lineReader({ maxBytes, onLine, onOverflow }) {
  let parts = [];
  let bytes = 0;
  let overflowed = false;

  const overflow = () => {
    overflowed = true;
    parts = [];
    bytes = 0;
    onOverflow();
  };
  // A "\r" ending a line is not part of it (nor is one that may be followed by its "\n"), so it does
  // not count against the limit.
  const endsInCr = () => {
    const last = parts[parts.length - 1];
    return last !== undefined && last[last.length - 1] === CR ? 1 : 0;
  };
  const take = () => {
    let buf = parts.length === 1 ? parts[0] : Buffer.concat(parts, bytes);
    if (buf.length > 0 && buf[buf.length - 1] === CR) buf = buf.subarray(0, -1);
    parts = [];
    bytes = 0;
    return buf.toString('utf8');
  };

  return {
    /** Read one chunk. */
    push(chunk) {
      let start = 0;
      while (!overflowed) {
        const nl = chunk.indexOf(NL, start);
        const end = nl === -1 ? chunk.length : nl;
        if (end > start) {
          parts.push(chunk.subarray(start, end));
          bytes += end - start;
        }
        if (bytes > maxBytes + endsInCr()) return overflow();
        if (nl === -1) return;
        start = nl + 1;
        onLine(take());
      }
    },
    /** The peer half-closed: a last line without its newline still counts. */
    end() {
      if (!overflowed && bytes > 0) onLine(take());
    },
    /** Bytes of a line begun and not yet ended. */
    get pending() {
      return bytes;
    },
  };
}

/** A request; version 1 carries no `accept`. */
export const requestMessage = (id, op, args = {}, { v = CONTROL_VERSION, accept = [] } = {}) => (
  v >= 2 && accept.length ? { v, id, op, args, accept } : { v, id, op, args });
export const okReply = (id, result, v = CONTROL_VERSION) => ({ v, id, ok: true, result });
export const errorReply = (id, code, message, v = CONTROL_VERSION) => ({ v, id, ok: false, error: { code, message } });
export const progressMessage = (id, progress, v = CONTROL_VERSION) => ({ v, id, progress });

/** A line that is a progress step, not the reply (which has `ok`). */
export const isProgress = (msg) => msg !== null && typeof msg === 'object' && !('ok' in msg) && 'progress' in msg;

/**
 * An old server's refusal of a newer request: it answers in its own, lower version, before running
 * anything, so the request may be sent again in that version.
 */
export const isVersionRefusal = (reply, sentVersion) => reply?.ok === false && Number.isInteger(reply.v)
  && reply.v < sentVersion && reply.v >= MIN_CONTROL_VERSION && /protocol version/.test(String(reply.error?.message ?? ''));
