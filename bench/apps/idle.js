// The app of the primary-cost bench: listens and does nothing, so what is measured is the primary.
import http from 'node:http';

http.createServer((req, res) => res.end()).listen(Number(process.env.PORT), '127.0.0.1');
