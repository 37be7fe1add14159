// The healthy twin of prom-client-leak: the same server and observations, labelled by the route
// template (/users/:id), so the Histogram keeps a handful of series however many users come.
//   PORT, LEAK_MB_PER_MIN (3: the rate the leaking twin's series would take)
process.env.TWIN = 'healthy';
await import('../prom-client-leak/server.js');
