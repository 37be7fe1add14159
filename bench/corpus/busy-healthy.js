// Healthy and busy: a server that collects on nearly every poll, as one under steady load does
// (lib/busy-load.js). After each scavenge the heap reads higher than after the last, however
// healthy the app: what survives its major GCs is flat.
//   PORT, and lib/busy-load.js's
import http from 'node:http';
import { startBusyLoad } from './lib/busy-load.js';

startBusyLoad();

http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ ok: true, pid: process.pid, rows: Array.from({ length: 50 }, (_, i) => i) }));
}).listen(Number(process.env.PORT), '127.0.0.1');
