import test from 'ava';
import { EventEmitter } from 'node:events';
import { heldTable } from '../../../src/worker/drain/held.js';

// The open responses, as long-lived.js keeps them: added with their start time at the request,
// removed at 'close'.
function world() {
  const responses = new Map();
  const table = heldTable(() => responses);
  let clock = 1000;
  const open = (method, url) => {
    const res = Object.assign(new EventEmitter(), { req: { method, url } });
    responses.set(res, clock++);
    res.once('close', () => responses.delete(res));
    return res;
  };
  return { table, open };
}

test('held: open requests oldest first, without their query; closed ones forgotten; upgraded sockets counted', (t) => {
  const { table, open } = world();
  const a = open('GET', '/socket.io/?EIO=4&transport=polling&sid=secret');
  const b = open('POST', '/upload');
  const sock = new EventEmitter();
  table.upgrade(sock);
  let snap = table.snapshot();
  t.deepEqual(snap.requests.map((r) => [r.method, r.path]), [['GET', '/socket.io/'], ['POST', '/upload']]);
  t.true(snap.requests.every((r) => r.ageMs >= 0));
  t.like(snap, { openRequests: 2, upgraded: 1 });
  a.emit('close');
  sock.emit('close');
  snap = table.snapshot();
  t.deepEqual(snap.requests.map((r) => r.path), ['/upload']);
  t.like(snap, { openRequests: 1, upgraded: 0 });
  b.emit('close');
  t.deepEqual(table.snapshot(), { requests: [], openRequests: 0, upgraded: 0 });
});

test('held: lists the 20 oldest of many, and counts them all', (t) => {
  const { table, open } = world();
  for (let i = 0; i < 50; i++) open('GET', `/r${i}`);
  const snap = table.snapshot();
  t.is(snap.openRequests, 50);
  t.is(snap.requests.length, 20);
  t.is(snap.requests[0].path, '/r0');
});
