import test from 'ava';
import { routingFacts, slotOf, pickSlot } from '../../src/core/sticky-route.js';

const req = (line, headers = {}) => `${line}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;

// [first chunk, header option, expected facts]
const facts = [
  [req('GET /socket.io/?EIO=4&transport=polling&t=abc HTTP/1.1'), null, { sid: null, client: null }],
  [req('GET /socket.io/?EIO=4&transport=polling&t=abc&sid=Zq3-_x HTTP/1.1'), null, { sid: 'Zq3-_x', client: null }],
  [req('POST /socket.io/?EIO=4&sid=abc123&transport=polling HTTP/1.1'), null, { sid: 'abc123', client: null }],
  [req('GET /socket.io/?EIO=4&transport=websocket&sid=w%3D HTTP/1.1', { Upgrade: 'websocket' }), null, { sid: 'w%3D', client: null }],
  // Not engine.io: a sid of the app's own is not a session of ours.
  [req('GET /search?sid=42 HTTP/1.1'), null, { sid: null, client: null }],
  // A sid in a header line, not in the request line, is not ours either.
  [req('GET / HTTP/1.1', { Referer: '/x?EIO=4&sid=zz' }), null, { sid: null, client: null }],
  [req('GET / HTTP/1.1', { 'X-Forwarded-For': '203.0.113.7, 10.0.0.1' }), 'x-forwarded-for', { sid: null, client: '203.0.113.7' }],
  [req('GET / HTTP/1.1', { 'x-real-ip': ' 198.51.100.2 ' }), 'x-real-ip', { sid: null, client: '198.51.100.2' }],
  [req('GET / HTTP/1.1', { 'X-Forwarded-For': '' }), 'x-forwarded-for', { sid: null, client: null }],
  [req('GET / HTTP/1.1'), 'x-forwarded-for', { sid: null, client: null }],
  // A first chunk cut inside the request line.
  ['GET /socket.io/?EIO=4&transport=polling&sid=abc', null, { sid: 'abc', client: null }],
  ['\x16\x03\x01\x02\x00', 'x-forwarded-for', { sid: null, client: null }],
];
for (const [i, [head, header, want]] of facts.entries()) {
  test(`routingFacts #${i} ${JSON.stringify(head.split('\r\n')[0])} ${header ?? ''}`, (t) => {
    t.deepEqual(routingFacts(head, header), want);
  });
}

test('slotOf: the same key, the same slot; keys spread over the slots', (t) => {
  t.is(slotOf('10.0.0.1', 4), slotOf('10.0.0.1', 4));
  const hits = new Array(4).fill(0);
  for (let i = 0; i < 400; i++) hits[slotOf(`10.0.${i >> 8}.${i & 255}`, 4)]++;
  t.true(hits.every((n) => n > 50), `spread: ${hits}`);
});

test('pickSlot: the client\'s own slot while it serves, the next serving one while it does not, null when none', (t) => {
  const own = slotOf('client-a', 4);
  t.is(pickSlot('client-a', 4, () => true), own);
  t.is(pickSlot('client-a', 4, (s) => s !== own), (own + 1) % 4);
  t.is(pickSlot('client-a', 4, (s) => s === (own + 3) % 4), (own + 3) % 4);
  t.is(pickSlot('client-a', 4, () => false), null);
  t.is(pickSlot('client-a', 0, () => true), null);
});
