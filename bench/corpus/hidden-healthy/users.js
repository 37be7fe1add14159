// The last 1000 users seen: a bounded cache, ~1 MiB. Nothing grows.
const recent = new Map();

export function cacheUser(id) {
  recent.set(id, { id, name: `user ${id}`, tags: new Array(110).fill(id + 0.5) });
  if (recent.size > 1000) recent.delete(recent.keys().next().value);
}
