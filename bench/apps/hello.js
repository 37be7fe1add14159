// The app of the overhead bench: the smallest useful HTTP server, identical under both primaries.
import http from 'node:http';

const body = 'hello world\n';
http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
