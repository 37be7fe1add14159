// The healthy twin of buffer-churn-leak: the same Buffer churn (8 MiB/min, each dropped at once),
// nothing kept. External memory saws (on Node 24+ short-lived Buffers may wait for a major GC)
// and must never be called a leak.
process.env.LEAK_MB_PER_MIN = '0';
await import('./buffer-churn-leak.js');
