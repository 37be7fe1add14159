import test from 'ava';
import { byteRing } from '../../src/primary/byte-ring.js';

const bytes = (n, c) => Buffer.alloc(n, c);

test('copies wait in order; room comes back as the oldest is released, wrapping to the start', (t) => {
  const ring = byteRing(10);
  const a = ring.copyIn(bytes(4, 'a'));
  const b = ring.copyIn(bytes(4, 'b'));
  t.is(String(a), 'aaaa');
  t.is(String(b), 'bbbb');
  t.is(ring.copyIn(bytes(3, 'c')), null, 'only 2 bytes left at the end, none at the start');
  ring.release(); // a is written
  const c = ring.copyIn(bytes(3, 'c'));
  t.is(String(c), 'ccc', 'wrapped into the room a left');
  t.is(String(b), 'bbbb', 'a copy in flight is never overwritten');
  t.is(ring.copyIn(bytes(2, 'd')), null, 'wrapped: only the 1 byte between c and b is free');
  ring.release(); // b
  t.is(String(ring.copyIn(bytes(5, 'e'))), 'eeeee');
  t.is(String(c), 'ccc');
  t.is(ring.inFlight, 2);
});

test('a copy larger than the ring is refused; an empty ring starts again at 0', (t) => {
  const ring = byteRing(8);
  t.is(ring.copyIn(bytes(9, 'x')), null);
  ring.copyIn(bytes(6, 'y'));
  ring.release();
  t.is(ring.inFlight, 0);
  t.is(String(ring.copyIn(bytes(8, 'z'))), 'zzzzzzzz', 'the whole ring is free again');
});
