// The words of what a worker holds open: handle types, what its fds are, its children's commands.
// The core gives them as data (core/leak/handle-trend.js, core/sites/fd-kinds.js,
// core/sites/child-commands.js); they are said here, once.
import { LEAK_KINDS } from '../constants.js';

/** "TCP to 127.0.0.1:4000, ESTABLISHED +12/s (659 open)" */
export function describeFdKinds(kinds) {
  return kinds.map((k) => `${k.what} +${k.perSec}/s (${k.count} open)`).join('; ');
}

/**
 * A handles leak's growing types: "TCPSocketWrap +5/s, Timeout +5/s", and what the fds are:
 * "fd +12/s: TCP to 127.0.0.1:4000, ESTABLISHED +12/s (659 open)".
 * @param {{type:string, perSec:number, count:number, kinds?:{what:string, count:number, perSec:number}[]}[]} types
 */
export function describeHandles(types) {
  const named = namedTypes(types);
  const text = named.map((t) => `${t.type} +${t.perSec}/s`).join(', ');
  const kinds = types.find((t) => t.type === 'fd')?.kinds;
  if (!kinds?.length) return text;
  return named.some((t) => t.type === 'fd') ? `${text}: ${describeFdKinds(kinds)}` : `${text}; fds: ${describeFdKinds(kinds)}`;
}

// A socket is a resource and an fd: handle-trend.js counts it once, as the resource, in the leak's
// growthPerSec, so the fd climb is named only when it is the leak's only face (files opened and
// never closed). Said the same way here, or the words would list a rate the total leaves out.
const namedTypes = (types) => (types.some((t) => t.type !== 'fd') ? types.filter((t) => t.type !== 'fd') : types);

/**
 * A handles leak's fields with its documented `summary` (docs/events.md: leak.warning, and
 * worker.recycle for such a leak, and inspect's `leak`), worded from its types: the core gives the
 * types alone. Anything else is returned as it is.
 * @template T @param {T} fields @returns {T}
 */
export function withSummary(fields) {
  if (fields?.kind !== LEAK_KINDS.HANDLES || !Array.isArray(fields.types) || fields.summary != null) return fields;
  return { ...fields, summary: describeHandles(fields.types) };
}

/** A children leak's commands: "node -e … ×6 (+1.2/min); sh -c tail -f log ×1". */
export function describeCommands(list) {
  return list.map((c) => `${c.command} ×${c.count}${c.perMin ? ` (+${c.perMin}/min)` : ''}`).join('; ');
}
