// The poll's group size on recorded round trips: it doubles after ten rounds in a row answered
// within half the target, halves on one round over it, and stays within [16, the slot count].
import test from 'ava';
import { GROUP_MIN, GROUP_TARGET_MS, newGroupSize, nextGroupSize, pollGroups } from '../../../src/primary/tick/group-size.js';

const rounds = (g, slowest, slots, times) => {
  for (let i = 0; i < times; i++) g = nextGroupSize(g, slowest, slots);
  return g;
};

test('a loop starts at 16 a group', (t) => {
  t.deepEqual(newGroupSize(), { size: GROUP_MIN, calm: 0 });
  t.is(pollGroups(16), 1, 'up to 16 workers: one tick polls all');
  t.is(pollGroups(40), 3);
  t.is(pollGroups(128, 64), 2);
  t.is(pollGroups(0), 1);
});

const CASES = [
  // [what, rounds of slowest ms, slots, size after]
  ['ten fast rounds double it', [[6, 10]], 128, 32],
  ['nine do not', [[6, 9]], 128, 16],
  ['a round between half the target and the target starts the count again', [[6, 9], [GROUP_TARGET_MS * 0.75, 1], [6, 9]], 128, 16],
  ['fast rounds grow it while groups are still needed', [[6, 100]], 128, 128],
  ['and never past the slot count: 40 slots stop at 64 (one group)', [[6, 100]], 40, 64],
  ['one slow round halves it', [[6, 20], [GROUP_TARGET_MS + 1, 1]], 128, 32],
  ['slow rounds take it down to 16 and no lower', [[6, 30], [900, 5]], 128, GROUP_MIN],
  ['a round at the target exactly keeps it', [[6, 10], [GROUP_TARGET_MS, 1]], 128, 32],
  ['a round that polled no one says nothing', [[6, 9], [null, 1], [6, 1]], 128, 32],
];

for (const [what, seq, slots, size] of CASES) {
  test(`group size: ${what}`, (t) => {
    let g = newGroupSize();
    for (const [ms, times] of seq) g = rounds(g, ms, slots, times);
    t.is(g.size, size);
  });
}
