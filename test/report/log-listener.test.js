// Every event is one log line, worded from its fields; a handles leak's line keeps its documented
// summary, which the report words now that the core gives the types alone.
import test from 'ava';
import { EventEmitter } from 'node:events';
import { logEvents } from '../../src/report/log-listener.js';
import { Writable } from 'node:stream';
import pino from 'pino';
import { EVENTS } from '../../src/constants.js';

function listen() {
  const events = new EventEmitter();
  const lines = [];
  const logger = {
    warn: (fields, msg) => lines.push({ level: 'warn', fields, msg }), info: (fields, msg) => lines.push({ level: 'info', fields, msg }),
    isLevelEnabled: (level) => level !== 'debug',
  };
  const stop = logEvents(events, logger);
  return { events, lines, stop };
}

test('a handles leak\'s line carries its summary beside its types, and the message says the same', (t) => {
  const { events, lines } = listen();
  const types = [{ type: 'fd', perSec: 12, count: 382, kinds: [{ what: 'TCP to 127.0.0.1:4000, ESTABLISHED', count: 360, perSec: 12 }] }];
  events.emit('event', { event: EVENTS.LEAK_WARNING, slot: 0, pid: 7, kind: 'handles', growthPerSec: 12, types }, { level: 'warn' });
  events.emit('event', { event: EVENTS.WORKER_RECYCLE, slot: 0, pid: 7, reason: 'leak', kind: 'handles', growthPerSec: 12, types }, { level: 'warn' });
  const summary = 'fd +12/s: TCP to 127.0.0.1:4000, ESTABLISHED +12/s (360 open)';
  t.is(lines[0].fields.summary, summary);
  t.is(lines[0].msg, `slot 0: handles leak: ${summary}`);
  t.is(lines[1].fields.summary, summary, 'a recycle for the leak carries the leak.warning fields');
});

test('other events are logged with their own fields, and a message given with one is kept', (t) => {
  const { events, lines, stop } = listen();
  const fields = { event: EVENTS.WORKER_READY, slot: 1, pid: 9 };
  events.emit('event', fields, { level: 'info' });
  events.emit('event', { msg: 'plain' }, { level: 'info', msg: 'a plain line' });
  t.is(lines[0].fields, fields);
  t.is(lines[0].msg, 'slot 1: pid 9 ready');
  t.is(lines[1].msg, 'a plain line');
  stop();
  events.emit('event', fields, { level: 'info' });
  t.is(lines.length, 2, 'no line once stopped');
});

// A pino logger at `level` whose lines land in the returned array, parsed.
function pinoAt(level) {
  const lines = [];
  const dest = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(chunk)); done(); } });
  return { logger: pino({ level }, dest), lines };
}

test('a suspicion\'s start and end are logged at debug, worded, and not at all at info', async (t) => {
  const emit = (events) => {
    events.emit('event', { event: EVENTS.LEAK_SUSPECTED, slot: 1, pid: 9, heap: true, external: false, reference: false }, { level: 'debug' });
    events.emit('event', { event: EVENTS.LEAK_CLEARED, slot: 1, pid: 9, durationMs: 21_000, points: 2, forcedGcs: 1, pauseMs: 12.5, confirmed: false }, { level: 'debug' });
  };
  const debug = pinoAt('debug');
  const info = pinoAt('info');
  for (const { logger } of [debug, info]) {
    const events = new EventEmitter();
    logEvents(events, logger);
    emit(events);
  }
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(debug.lines.map((l) => [l.event, l.msg]), [
    [EVENTS.LEAK_SUSPECTED, "slot 1: pid 9's heap rose; checking with full GCs and the sites' profiler"],
    [EVENTS.LEAK_CLEARED, "slot 1: pid 9's suspected leak cleared (2 point(s) in 21.0 s, 1 forced GC(s))"],
  ]);
  t.is(info.lines.length, 0);
});
