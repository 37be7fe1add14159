// Every user ever seen, kept: ~1 KiB each. The leak.
const seen = [];

export function cacheUser(id) {
  seen.push({ id, name: `user ${id}`, tags: new Array(110).fill(id + 0.5) });
}
