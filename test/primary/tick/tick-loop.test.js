// The poll schedule in-process, on a fake clock: one tick at a time, each group of slots in turn,
// spaced the poll interval over the groups with ±10 % jitter; a tick that throws is reported and
// the loop goes on; stop() ends it.
import test from 'ava';
import { TickLoop } from '../../../src/primary/tick/tick-loop.js';
import { FakeClock } from '../../helpers/fake-clock.js';

function world({ slots = 4, random = () => 0.5, run } = {}) {
  const clock = new FakeClock(0);
  const ticks = [];
  const errors = [];
  const loop = new TickLoop({
    run: run ?? (async (group) => { ticks.push({ at: clock.now(), ...group }); }),
    settings: () => ({ pollInterval: 1000, slots }),
    onError: (err) => errors.push(err),
    random, timers: clock,
  });
  return { clock, loop, ticks, errors };
}

test('up to 16 workers: one tick an interval, all slots in it', async (t) => {
  const w = world();
  w.loop.start();
  await w.clock.advance(3000);
  t.deepEqual(w.ticks, [{ at: 1000, index: 0, of: 1 }, { at: 2000, index: 0, of: 1 }, { at: 3000, index: 0, of: 1 }]);
});

test('40 workers: three groups take turns, a third of the interval apart', async (t) => {
  const w = world({ slots: 40 });
  w.loop.start();
  await w.clock.advance(1001);
  t.deepEqual(w.ticks.map((x) => x.index), [0, 1, 2]);
  t.deepEqual(w.ticks.map((x) => Math.round(x.at)), [333, 667, 1000]);
});

test('jitter spreads the period within ±10 %', async (t) => {
  const lo = world({ random: () => 0 });
  lo.loop.start();
  await lo.clock.advance(900);
  t.is(lo.ticks.length, 1, '0.9 × the interval');
  const hi = world({ random: () => 1 });
  hi.loop.start();
  await hi.clock.advance(1099);
  t.is(hi.ticks.length, 0, 'not before 1.1 × the interval');
});

test('a tick is never started while one runs, a failed tick is reported, and stop() ends the loop', async (t) => {
  const clock = new FakeClock(0);
  let release;
  let running = 0;
  let most = 0;
  const errors = [];
  const loop = new TickLoop({
    run: async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => { release = r; });
      running--;
      throw new Error('boom');
    },
    settings: () => ({ pollInterval: 1000, slots: 2 }), onError: (err) => errors.push(err.message), random: () => 0.5, timers: clock,
  });
  loop.start();
  await clock.advance(5000);
  t.is(most, 1, 'the next tick waits for this one');
  release();
  await clock.advance(1000);
  t.deepEqual(errors, ['boom']);
  t.is(running, 1, 'the loop went on after the failure');
  loop.stop();
  release();
  await clock.advance(5000);
  t.is(running, 0);
  t.is(errors.length, 2, 'the tick that was running finished; no tick after stop()');
});

test('the group grows while rounds answer fast, only between rounds, and shrinks on a slow one', async (t) => {
  let ms = 5;
  const w = world({ slots: 40, run: async (group) => { w.ticks.push(group); return ms; } });
  w.loop.start();
  await w.clock.advance(10_050);
  t.is(w.loop.size, 32, 'ten rounds of three groups answered in 5 ms: 32 a group');
  const at = w.ticks.length;
  await w.clock.advance(11_050);
  t.is(w.loop.size, 64, 'ten more rounds of two: one group of all 40');
  t.deepEqual(w.ticks.slice(at, at + 2), [{ index: 0, of: 2 }, { index: 1, of: 2 }], 'after the first growth, two groups of 32');
  t.deepEqual(w.ticks.at(-1), { index: 0, of: 1 });
  ms = 120;
  await w.clock.advance(1100);
  t.is(w.loop.size, 32, 'one round over the target halves it');
  t.deepEqual(w.errors, []);
  // Every round polls each of its groups once, in order, whatever the size it was started at.
  const order = w.ticks.map((x, i) => x.index === (i === 0 || w.ticks[i - 1].index === w.ticks[i - 1].of - 1 ? 0 : w.ticks[i - 1].index + 1));
  t.true(order.every(Boolean), JSON.stringify(w.ticks));
});
