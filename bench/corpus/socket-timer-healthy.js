// The healthy twin of socket-timer-leak: each socket and interval is closed after 2 s (~10 open).
//   PORT, PER_SEC (5)
process.env.TWIN = 'healthy';
await import('./socket-timer-leak.js');
