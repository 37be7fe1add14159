// The healthy twin of node-cache-leak: the same server, lookups and sets, but the cache has stdTTL 10
// and checkperiod 5, so each listing expires after 10 s and the cache holds ~10 s of them.
//   PORT, LEAK_MB_PER_MIN (3: the rate the leaking twin's entries would take)
process.env.TWIN = 'healthy';
await import('../node-cache-leak/server.js');
