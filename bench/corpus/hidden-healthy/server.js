// The healthy twin of hidden-leak: the same server and churn, but its users.js keeps only the last
// 1000 users (a bounded cache). Nothing grows: no leak may be named.
//   PORT, LEAK_MB_PER_MIN (3: the rate users arrive at), CHURN_MB_PER_SEC (5)
process.env.TWIN = 'healthy';
await import('../hidden-leak/server.js');
