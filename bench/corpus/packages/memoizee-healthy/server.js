// The healthy twin of memoizee-leak: the same server and calls, memoized with `max: 1000`, so
// memoizee keeps the 1000 most recently used keys and drops the rest.
//   PORT, LEAK_MB_PER_MIN (3: the rate the leaking twin's keys would take)
process.env.TWIN = 'healthy';
await import('../memoizee-leak/server.js');
