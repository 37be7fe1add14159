// A slot number from a user (the CLI, the control socket, the --tui keys), checked in one place.
import { NodesupError } from './errors.js';

/**
 * The slot as an integer in 0..count-1, or a NODESUP_ERR_USAGE naming what was wrong.
 * `count` is unknown on the client side (Infinity): there only the shape is checked.
 */
export function parseSlot(raw, count = Infinity) {
  const slot = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
  if (Number.isInteger(slot) && slot >= 0 && slot < count) return slot;
  const range = Number.isFinite(count) ? `0..${count - 1}` : 'a whole number 0..N-1';
  throw new NodesupError('NODESUP_ERR_USAGE', `slot: expected ${range}, got ${JSON.stringify(raw)}`);
}
