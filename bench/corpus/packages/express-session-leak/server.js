// express + express-session with its default MemoryStore, whose README warns: "MemoryStore is
// purposely not designed for a production environment. It will leak memory under most conditions".
// Every visit to /cart that comes without the session cookie (a crawler, a health check, an API
// client that drops cookies) gets a new session: saveUninitialized: true, and the visit writes the
// cart into it. MemoryStore keeps each session's JSON (~8 KiB here) under its id, with no expiry
// (the cookie has no maxAge), so they pile up: about LEAK_MB_PER_MIN (3) MiB/min.
// The app drives the visits itself, by the clock, over loopback (the bench's own load only gets GET /).
// The healthy twin (../express-session-healthy) is this same server whose visitor sends the cookie
// back: one session, rewritten on every visit, the same requests and the same bytes written.
//   PORT, LEAK_MB_PER_MIN (3)
import http from 'node:http';
import express from 'express';
import session from 'express-session';

const healthy = process.env.TWIN === 'healthy';
const port = Number(process.env.PORT);

/** A visitor's cart: ~8 KiB of JSON. */
function cartOf(visit) {
  const items = [];
  for (let i = 0; i < 100; i++) items.push({ sku: `SKU-${visit}-${i}`, name: `item ${i} of visit ${visit}`, qty: 1 + (i % 3), cents: 199 + i });
  return items;
}
const SESSION_BYTES = JSON.stringify({ cookie: { originalMaxAge: null, expires: null, httpOnly: true, path: '/' }, cart: cartOf(1e6) }).length;

const app = express();
app.get('/', (req, res) => { res.send(`ok ${process.pid} visits ${visits}\n`); });
app.use('/cart', session({ secret: 'nodesup bench', resave: false, saveUninitialized: true }));
app.get('/cart', saveVisit);

// The handler that writes the session: express-session saves it into the MemoryStore at res.end.
function saveVisit(req, res) {
  req.session.cart = cartOf(Number(req.query.visit));
  res.json({ items: req.session.cart.length });
}

// The visitor: keep-alive to our own server. The leak's drops the cookie, the twin's keeps it.
const agent = new http.Agent({ keepAlive: true, maxSockets: 2, timeout: 4000 });
let cookie = null;
let visits = 0;
function visit() {
  const headers = healthy && cookie ? { cookie } : {};
  http.get({ host: '127.0.0.1', port, path: `/cart?visit=${visits++}`, agent, headers }, (res) => {
    if (healthy && !cookie) cookie = res.headers['set-cookie']?.[0]?.split(';')[0] ?? null;
    res.resume();
  }).on('error', () => {});
}

const perMs = (Number(process.env.LEAK_MB_PER_MIN ?? 3) * 1024 * 1024) / 60_000;
let owed = 0;
let last = Date.now();
app.listen(port, '127.0.0.1', () => {
  last = Date.now();
  setInterval(() => {
    owed += perMs * (Date.now() - last); // by the clock: a starved timer still leaks on time
    last = Date.now();
    for (; owed >= SESSION_BYTES; owed -= SESSION_BYTES) visit();
  }, 100);
});
