// Handles by trend (docs/incidents.md, incident 5): a climb of sockets and timers is named by its types, whatever the count.
import test from 'ava';
import { detectHandleLeak } from '../../../src/core/leak/handle-trend.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';

const T0 = 5_000_000;
// One sample a second for `seconds`, resources and fds from f(s).
function history(seconds, f) {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  for (let s = 0; s <= seconds; s++) w.push({ t: T0 + s * 1000, ...f(s) });
  return { window: w, now: T0 + seconds * 1000 };
}
const seed004 = (s) => ({ resources: { TCPSocketWrap: 3 + 5 * s, Timeout: 2 + 5 * s, TTYWrap: 1 }, fds: 20 + 5 * s });

const CASES = [
  // [title, seconds, f, the growing types (fd among them when the fds climb too) or null]
  ['incident 5: 5 sockets and 5 intervals a second, 30 s', 30, seed004, ['TCPSocketWrap', 'Timeout', 'fd']],
  ['the same climb at a high count (2,000 open already)', 30, (s) => ({ resources: { TCPSocketWrap: 2000 + 5 * s }, fds: 2100 + 5 * s }), ['TCPSocketWrap', 'fd']],
  ['too short a history (20 s)', 20, seed004, null],
  ['a steady ~10 open', 60, (s) => ({ resources: { TCPSocketWrap: 10 + (s % 3), Timeout: 10 - (s % 2) }, fds: 30 }), null],
  ['a burst that came and went (load test)', 40, (s) => ({ resources: { TCPSocketWrap: s < 20 ? 10 + 10 * s : Math.max(10, 210 - 20 * (s - 20)) }, fds: 30 }), null],
  ['climbing to a plateau at 256 (incident 5\'s pool): named while it climbs', 45, (s) => ({ resources: { TCPSocketWrap: Math.min(256, 5 * s) }, fds: 30 }), ['TCPSocketWrap']],
  ['… and not once it has sat at 256 for 30 s', 90, (s) => ({ resources: { TCPSocketWrap: Math.min(256, 5 * s) }, fds: 30 }), null],
  ['slow drift under the rate (0.2/s)', 60, (s) => ({ resources: { Timeout: 10 + Math.floor(s / 5) }, fds: 30 }), null],
  ['files opened and never closed: fds alone', 30, (s) => ({ resources: { TTYWrap: 1 }, fds: 20 + 2 * s }), ['fd']],
  ['a type first seen mid-window that climbs', 30, (s) => ({ resources: s < 5 ? { TTYWrap: 1 } : { TTYWrap: 1, TCPSocketWrap: 5 * (s - 4) }, fds: 30 }), ['TCPSocketWrap']],
  ['a climb that ended with every socket of the type closed', 30, (s) => ({ resources: s < 25 ? { TTYWrap: 1, TCPSocketWrap: 2 + 3 * s } : { TTYWrap: 1 }, fds: 30 }), null],
];
for (const [title, seconds, f, want] of CASES) {
  test(`detectHandleLeak: ${title}`, (t) => {
    const { window, now } = history(seconds, f);
    const found = detectHandleLeak(window, { now, startedAt: T0 });
    if (want === null) return t.is(found, null, JSON.stringify(found));
    t.is(found.kind, 'handles');
    t.deepEqual(found.types.map((x) => x.type).sort(), [...want].sort());
  });
}

test('detectHandleLeak: the types that grow and how fast; a socket is not counted again as its fd', (t) => {
  const { window, now } = history(30, seed004);
  const found = detectHandleLeak(window, { now, startedAt: T0 });
  t.deepEqual(found.types, [{ type: 'TCPSocketWrap', perSec: 5, count: 153 }, { type: 'Timeout', perSec: 5, count: 152 }, { type: 'fd', perSec: 5, count: 170 }]);
  t.is(found.growthPerSec, 10, 'the fd climb is kept in the detail, not in the total');
});
test('detectHandleLeak: fds alone are the leak\'s only face, and counted', (t) => {
  const { window, now } = history(30, (s) => ({ resources: { TTYWrap: 1 }, fds: 20 + 2 * s }));
  t.is(detectHandleLeak(window, { now, startedAt: T0 }).growthPerSec, 2);
});

// The http.Agent per request: idle keep-alive sockets are unref'd, so the resource types
// stay flat ("active handles 3") and only fds climb; the agent's full reads (every 10 s) say what
// they are, and the verdict names them.
const agentPerRequest = (s) => ({
  resources: { PipeWrap: 1, Timeout: 2 }, fds: 22 + 12 * s,
  ...(s % 10 === 0 ? { fdKinds: { pipe: 10, 'TCP listening on 127.0.0.1:3000': 1, 'TCP to 127.0.0.1:4000, ESTABLISHED': 12 * s, 'file /srv/app/log.txt': 1 } } : {}),
});
test('detectHandleLeak: unref\'d keep-alive sockets are named by what the fds are', (t) => {
  const { window, now } = history(30, agentPerRequest);
  const found = detectHandleLeak(window, { now, startedAt: T0 });
  t.deepEqual(found.types.map((x) => x.type), ['fd']);
  t.deepEqual(found.types[0].kinds, [{ what: 'TCP to 127.0.0.1:4000, ESTABLISHED', count: 360, perSec: 12 }]);
  t.is(found.growthPerSec, 12);
});
test('detectHandleLeak: sockets that are resources too keep their type first, the fds after', (t) => {
  const { window, now } = history(30, (s) => ({ ...agentPerRequest(s), resources: { TCPSocketWrap: 12 * s } }));
  const found = detectHandleLeak(window, { now, startedAt: T0 });
  t.deepEqual(found.types.map((x) => x.type), ['TCPSocketWrap', 'fd']);
  t.deepEqual(found.types[1].kinds, [{ what: 'TCP to 127.0.0.1:4000, ESTABLISHED', count: 360, perSec: 12 }]);
  t.is(found.growthPerSec, 12, 'the sockets counted once');
});
test('detectHandleLeak: without fd readings the fds are only counted', (t) => {
  const { window, now } = history(30, (s) => ({ resources: { TTYWrap: 1 }, fds: 20 + 2 * s }));
  const found = detectHandleLeak(window, { now, startedAt: T0 });
  t.deepEqual(found.types, [{ type: 'fd', perSec: 2, count: 80 }]);
});
test('detectHandleLeak: one fd reading in the window, the first one earlier in the worker\'s life: still named by what the fds are', (t) => {
  // Read as the count passed 48 (at 10 s) and next at 40 s; the leak is judged over the last 30 s.
  const { window, now } = history(45, (s) => ({
    resources: { TTYWrap: 1 }, fds: 20 + 3 * s,
    ...(s === 10 || s === 40 ? { fdKinds: { pipe: 4, 'TCP to 127.0.0.1:4000, ESTABLISHED': 3 * s } } : {}),
  }));
  const found = detectHandleLeak(window, { now, startedAt: T0 });
  t.deepEqual(found.types[0].kinds, [{ what: 'TCP to 127.0.0.1:4000, ESTABLISHED', count: 120, perSec: 3 }]);
});
