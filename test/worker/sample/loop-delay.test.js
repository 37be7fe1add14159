// The agent's event-loop delay monitor: fine while the loop works, coarse while it idles, and a
// stall seen at either resolution. Real timers on this test's own loop.
import test from 'ava';
import { loopDelay } from '../../../src/worker/sample/loop-delay.js';

const wait = (ms) => new Promise((r) => setTimeout(r, ms));
const block = (ms) => { const end = Date.now() + ms; while (Date.now() < end) { /* a synchronous stall */ } };

test.serial('10 ms while the loop is busy, 100 ms once it idles, 10 ms again when it works', (t) => {
  const d = loopDelay();
  t.is(d.resolution, 10, 'a worker starting up is busy');
  d.read(0.5);
  t.is(d.resolution, 10);
  d.read(0.001);
  t.is(d.resolution, 100);
  d.read(0.2);
  t.is(d.resolution, 10);
  d.read(0); // leave it stopped: an enabled monitor keeps nothing alive, but tidy
});

for (const elu of [0.5, 0]) {
  test.serial(`a 300 ms stall is seen at ${elu ? 'the fine' : 'the coarse'} resolution`, async (t) => {
    const d = loopDelay();
    d.read(elu);
    await wait(250); // a few timer periods at either resolution
    block(300);
    await wait(250); // the timer that the stall held back fires, and then some more
    const out = d.read(elu);
    t.true(out.delayMax >= 150, `delay max ${out.delayMax} ms at ${d.resolution} ms resolution`);
    t.true(out.delayP50 < out.delayMax);
  });
}

test.serial('peek (what inspect reads) sees the window so far without closing it; the next read still has the stall', async (t) => {
  const d = loopDelay();
  d.read(0.5);
  await wait(100);
  block(300);
  await wait(100);
  const peeked = d.peek();
  t.true(peeked.delayMax >= 150, `peek: delay max ${peeked.delayMax} ms`);
  const read = d.read(0.5);
  t.true(read.delayMax >= 150, `the poll's read after the peek: delay max ${read.delayMax} ms`);
  // Right after a read the window is empty: peek gives the last window's figures, not nothing.
  t.deepEqual(d.peek(), read);
  d.read(0);
});

test.serial('a read of a window with no timer sample yet says the last window\'s figures, not nothing; null only before any sample', async (t) => {
  const d = loopDelay();
  t.deepEqual(d.read(0.5), { delayP50: null, delayP99: null, delayMax: null }, 'nothing measured yet: unknown');
  await wait(100);
  const first = d.read(0.5);
  t.true(first.delayP99 !== null, 'a window with samples has figures');
  // The very next read comes before any timer of the new window could fire.
  t.deepEqual(d.read(0.5), first);
  d.read(0);
});
