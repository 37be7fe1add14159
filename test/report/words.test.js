// Events are worded once, from their fields: a message can never contradict the data beside it.
import test from 'ava';
import { messageFor, describeRecycle, describeLeak } from '../../src/report/words.js';
import { EVENTS, LEAK_KINDS, REASONS } from '../../src/constants.js';

const MiB = 1024 * 1024;

test('a limit recycle says value > limit; a predictive one, under its limit, says it was replaced before its crossing', (t) => {
  t.is(describeRecycle({ reason: REASONS.RSS, value: 300 * MiB, limit: 256 * MiB }), 'rss 300 MiB > 256 MiB');
  const early = describeRecycle({ reason: REASONS.RSS, value: 179 * MiB, limit: 180 * MiB, predictive: true });
  t.is(early, 'rss 179 MiB, replaced before its crossing of 180 MiB');
  t.false(early.includes('>'));
  t.is(describeRecycle({ reason: REASONS.RSS, value: 181 * MiB, limit: 180 * MiB, predictive: true }), 'rss 181 MiB > 180 MiB, its replacement ready before the crossing');
});

test('a memory recycle says what the worker retained; a slot\'s streak says how many workers in a row', (t) => {
  const site = { fn: 'cachePage', file: 'lib/pages.js', line: 9, share: 0.9 };
  t.regex(messageFor({ event: EVENTS.WORKER_RECYCLE, slot: 0, pid: 7, reason: REASONS.RSS, value: 300 * MiB, limit: 256 * MiB, retained: { kind: 'heap', bytesPerMin: 120 * MiB, sites: [site] } }),
    /recycled: rss 300 MiB > 256 MiB; retained heap \+120 MiB\/min, mostly from cachePage \(lib\/pages\.js:9\)$/);
  t.is(messageFor({ event: EVENTS.LEAK_WARNING, slot: 1, kind: 'heap', growthBytesPerSec: 2 * MiB, workersInRow: 4, sites: [site] }),
    'slot 1: 4 workers in a row filled at ~120 MiB/min (heap), mostly from cachePage (lib/pages.js:9)');
  t.is(messageFor({ event: EVENTS.LEAK_WARNING, slot: 1, kind: 'heap', growthBytesPerSec: MiB / 60,
    sites: [{ fn: 'set', file: 'node_modules/some-store/lib/memory.js', line: 119, package: 'some-store@2.3.1', via: { file: 'server.js', line: 12 } }] }),
  'slot 1: heap grows 1.0 MiB/min, mostly from some-store@2.3.1 set, reached from server.js:12');
});

test('a leak is worded from its fields: kind, rate per minute and the first site', (t) => {
  t.is(describeLeak({ kind: LEAK_KINDS.HEAP, growthBytesPerSec: 2 * MiB / 60, sites: [{ fn: 'cachePage', file: 'lib/pages.js', line: 9 }] }),
    'heap grows 2.0 MiB/min, mostly from cachePage (lib/pages.js:9)');
  t.is(describeLeak({ kind: LEAK_KINDS.HANDLES, summary: 'Timeout +3/s' }), 'handles leak: Timeout +3/s');
  t.is(describeLeak({ kind: LEAK_KINDS.CHILDREN, growthBytesPerSec: 288 * MiB / 60, commands: [{ command: 'chromium --headless', count: 15, perMin: 6 }, { command: 'sh', count: 1, perMin: 0 }] }),
    'children grows 288 MiB/min, left running: chromium --headless ×15 (+6/min)');
  t.is(describeLeak({ kind: LEAK_KINDS.HANDLES, types: [{ type: 'Timeout', perSec: 3, count: 90 }] }), 'handles leak: Timeout +3/s', 'from its types, as the core gives it');
});

test('every event the supervisor logs without its own text has words of its own', (t) => {
  const carryTheirOwn = new Set([EVENTS.OUTPUT_DROPPED]);
  for (const event of Object.values(EVENTS)) {
    if (carryTheirOwn.has(event)) continue;
    const msg = messageFor({ event, slot: 0, pid: 1, reason: REASONS.RSS, value: 1, limit: 2, kind: LEAK_KINDS.HEAP, growthBytesPerSec: 1, changed: [], workers: 2, script: 'server.js', cause: 'initial', delayMs: 100, holdMs: 30000, code: 'fd-growth', fds: 2000, error: 'bad' });
    t.not(msg, event, `${event} has words`);
    t.false(/undefined|NaN/.test(msg), `${event}: ${msg}`);
  }
});

test('a forced exit names what held the worker', (t) => {
  const msg = messageFor({ event: EVENTS.WORKER_EXIT, slot: 1, pid: 9, signal: 'SIGTERM', forced: true, heldBy: { requests: [{ method: 'GET', path: '/socket.io/?EIO=4', ageMs: 9000 }], upgraded: 2 } });
  t.regex(msg, /held by 1 open request \(oldest GET \/socket\.io\/\?EIO=4 9\.0 s\), 2 upgraded sockets/);
});
