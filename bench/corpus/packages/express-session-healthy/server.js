// The healthy twin of express-session-leak: the same server, visits and session writes, but the
// visitor sends the session cookie back, so the MemoryStore holds one session, rewritten each visit.
//   PORT, LEAK_MB_PER_MIN (3: the rate of bytes written into sessions)
process.env.TWIN = 'healthy';
await import('../express-session-leak/server.js');
