// Where a sticky balancer sends a new connection, from the first bytes the client sent: the
// engine.io session id in the request line when there is one (the session lives on one worker),
// else the client (a configured header such as X-Forwarded-For, for a proxy in front, else the
// remote address) hashed onto a slot, so the same client always reaches the same slot.

const SID = /[?&]sid=([^&\s#]+)/;
const EIO = /[?&]EIO=\d/;

/**
 * The routing facts of a connection's first chunk (latin1 text): { sid, client }, each null when absent.
 * @param {string} head  the first bytes, as latin1
 * @param {string|null} header  a lower-case header name naming the client, or null
 */
export function routingFacts(head, header = null) {
  const eol = head.indexOf('\r\n');
  const line = eol < 0 ? head : head.slice(0, eol);
  const sid = EIO.test(line) ? (SID.exec(line)?.[1] ?? null) : null;
  return { sid, client: header ? headerValue(head, header) : null };
}

// The first value of a header (X-Forwarded-For: "client, proxy1, proxy2" names the client first).
function headerValue(head, name) {
  const lower = head.toLowerCase();
  const at = lower.indexOf(`\r\n${name}:`);
  if (at < 0) return null;
  const from = at + name.length + 3;
  const end = head.indexOf('\r\n', from);
  const value = head.slice(from, end < 0 ? undefined : end).split(',')[0].trim();
  return value || null;
}

/** The slot a client key lands on: FNV-1a of the key, modulo the slot count. */
export function slotOf(key, slots) {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % slots;
}

/**
 * The slot to serve a client: its own slot, or when that one has no serving worker the next one
 * that has. `serving(i)` says whether slot i has a worker ready for new connections. null: none.
 */
export function pickSlot(key, slots, serving) {
  if (slots < 1) return null;
  const start = slotOf(key, slots);
  for (let i = 0; i < slots; i++) {
    const s = (start + i) % slots;
    if (serving(s)) return s;
  }
  return null;
}
