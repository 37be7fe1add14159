import test from 'ava';
import { EventEmitter } from 'node:events';
import { heldTable } from '../../src/worker/held.js';

const open = (table, method, url) => {
  const res = new EventEmitter();
  table.request({ method, url }, res);
  return res;
};

test('held: open requests oldest first, without their query; closed ones forgotten; upgraded sockets counted', (t) => {
  const table = heldTable();
  const a = open(table, 'GET', '/socket.io/?EIO=4&transport=polling&sid=secret');
  const b = open(table, 'POST', '/upload');
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
  const table = heldTable();
  for (let i = 0; i < 50; i++) open(table, 'GET', `/r${i}`);
  const snap = table.snapshot();
  t.is(snap.openRequests, 50);
  t.is(snap.requests.length, 20);
  t.is(snap.requests[0].path, '/r0');
});
