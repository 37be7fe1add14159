// The control socket's contract, one definition for both ends (server.js and connection.js serve
// it, client.js speaks it): newline-delimited JSON, one request or reply per line.
//   request  {v, id, op, args}
//   reply    {v, id, ok: true, result} | {v, id, ok: false, error: {code, message}}
// Framing too is defined once, here: `frame` writes a line, `lineReader` reads them.

/** Protocol version; a peer of another version is refused with a message saying so. */
export const CONTROL_VERSION = 1;

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

export const requestMessage = (id, op, args = {}) => ({ v: CONTROL_VERSION, id, op, args });
export const okReply = (id, result) => ({ v: CONTROL_VERSION, id, ok: true, result });
export const errorReply = (id, code, message) => ({ v: CONTROL_VERSION, id, ok: false, error: { code, message } });
