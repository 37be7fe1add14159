// The healthy twin of listener-leak: each handler is removed a second after it was added.
//   PORT, LEAK_MB_PER_MIN (3: the rate handlers are added at), CHURN_KB_PER_SEC (512)
process.env.TWIN = 'healthy';
await import('./listener-leak.js');
