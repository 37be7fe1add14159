// The healthy twin of timer-leak: each interval is cleared a second after it started.
//   PORT, LEAK_MB_PER_MIN (3: the rate timers start at), CHURN_KB_PER_SEC (512)
process.env.TWIN = 'healthy';
await import('./timer-leak.js');
