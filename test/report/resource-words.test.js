// What a worker holds open, said from the core's data: handle types, what the fds are, the
// children's commands; and a handles leak's documented summary, filled in where it is shown.
import test from 'ava';
import { describeHandles, describeFdKinds, describeCommands, withSummary } from '../../src/report/resource-words.js';

const TO_UPSTREAM = { what: 'TCP to 127.0.0.1:4000, ESTABLISHED', count: 360, perSec: 12 };
const HANDLES = [
  ['the types that grow and how fast; a socket is not said again as its fd',
    [{ type: 'TCPSocketWrap', perSec: 5, count: 153 }, { type: 'Timeout', perSec: 5, count: 152 }, { type: 'fd', perSec: 5, count: 170 }], 'TCPSocketWrap +5/s, Timeout +5/s'],
  ['fds alone, without readings of what they are', [{ type: 'fd', perSec: 2, count: 80 }], 'fd +2/s'],
  ['unref\'d keep-alive sockets: the fds, named by what they are', [{ type: 'fd', perSec: 12, count: 382, kinds: [TO_UPSTREAM] }],
    'fd +12/s: TCP to 127.0.0.1:4000, ESTABLISHED +12/s (360 open)'],
  ['sockets that are resources too: their type first, the fds after',
    [{ type: 'TCPSocketWrap', perSec: 12, count: 360 }, { type: 'fd', perSec: 12, count: 382, kinds: [TO_UPSTREAM] }],
    'TCPSocketWrap +12/s; fds: TCP to 127.0.0.1:4000, ESTABLISHED +12/s (360 open)'],
];
for (const [title, types, want] of HANDLES) test(`describeHandles: ${title}`, (t) => t.is(describeHandles(types), want));

test('describeFdKinds: each kind with its rate and how many are open', (t) => {
  t.is(describeFdKinds([{ what: 'TCP to 127.0.0.1:4000, ESTABLISHED', count: 659, perSec: 12.1 }, { what: 'pipe', count: 20, perSec: 1 }]),
    'TCP to 127.0.0.1:4000, ESTABLISHED +12.1/s (659 open); pipe +1/s (20 open)');
});

test('describeCommands: a command that grew says its rate; one that held still, its count alone', (t) => {
  t.is(describeCommands([{ command: 'node -e helper', count: 14, perMin: 6 }, { command: 'sh -c tail -f log', count: 1, perMin: 0 }, { command: 'a', count: 1, perMin: null }]),
    'node -e helper ×14 (+6/min); sh -c tail -f log ×1; a ×1');
});

test('withSummary: a handles leak gets its summary from its types; other fields are left as they are', (t) => {
  const leak = { event: 'leak.warning', slot: 0, kind: 'handles', growthPerSec: 2, types: [{ type: 'fd', perSec: 2, count: 80 }] };
  t.deepEqual(withSummary(leak), { ...leak, summary: 'fd +2/s' });
  t.false('summary' in leak, 'the event itself is not changed');
  const heap = { event: 'leak.warning', kind: 'heap', growthBytesPerSec: 100 };
  t.is(withSummary(heap), heap);
  const said = { ...leak, summary: 'said already' };
  t.is(withSummary(said), said);
  t.is(withSummary(null), null);
});
