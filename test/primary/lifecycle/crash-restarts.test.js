// Crash restarts in-process: the real worker records with scripted workers, a fake clock. A slot's
// restart waits a backoff that grows with its consecutive crashes; too many crashes across the
// slots within the window give up.
import test from 'ava';
import { CrashRestarts } from '../../../src/primary/lifecycle/crash-restarts.js';
import { WorkerRecords } from '../../../src/primary/lifecycle/worker-records.js';
import { EVENTS, SPAWN_CAUSES } from '../../../src/constants.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const RESTART = { initialDelay: 100, maxDelay: 30_000, maxCrashes: 4, crashWindow: 60_000 };

class CountingPool extends WorkerRecords {
  constructor(clock) {
    super({ now: clock.now });
    this.spawns = [];
  }

  spawn(slot, cause) {
    this.spawns.push({ slot, cause, at: this.now() });
    return null;
  }
}

function world() {
  const clock = new FakeClock();
  const pool = new CountingPool(clock);
  pool.resize(2);
  const events = [];
  const restarts = new CrashRestarts({ pool, now: clock.now, timers: clock, report: (level, fields) => events.push(fields) })
    .configure({ restart: RESTART });
  const gaveUp = [];
  restarts.on('give-up', (err) => gaveUp.push(err));
  return { clock, pool, restarts, events, gaveUp };
}

test('a crash restarts its slot after the backoff, which doubles with each consecutive crash and resets at readiness', async (t) => {
  const w = world();
  w.restarts.crashed(0, '');
  t.like(w.events, [{ event: EVENTS.WORKER_RESTART, slot: 0, delayMs: 100, crashesInWindow: 1 }]);
  await w.clock.advance(99);
  t.deepEqual(w.pool.spawns, [], 'not before its delay');
  await w.clock.advance(1);
  t.like(w.pool.spawns, [{ slot: 0, cause: SPAWN_CAUSES.RESTART }]);
  w.restarts.crashed(0, '');
  t.is(w.events[1].delayMs, 200);
  w.restarts.ready(0);
  w.restarts.crashed(0, '');
  t.is(w.events[2].delayMs, 100, 'a ready worker ended the streak');
});

test('too many crashes within the window, across slots: give up with the app\'s last error output', (t) => {
  const w = world();
  for (let i = 0; i < 3; i++) w.restarts.crashed(i % 2, 'boot\nError: no database\n');
  t.deepEqual(w.gaveUp, []);
  w.restarts.crashed(1, 'boot\nError: no database\n');
  t.is(w.gaveUp.length, 1);
  t.is(w.gaveUp[0].code, 'NODESUP_ERR_CRASH_LOOP');
  t.is(w.gaveUp[0].appError, 'boot\nError: no database');
});

test('no restart after stop(), nor for a slot forgotten by a scale-down', async (t) => {
  const w = world();
  w.restarts.crashed(0, '');
  w.restarts.crashed(1, '');
  w.restarts.forget(1);
  await w.clock.advance(100);
  t.deepEqual(w.pool.spawns.map((s) => s.slot), [0]);
  w.restarts.crashed(0, '');
  w.restarts.stop();
  await w.clock.advance(10_000);
  t.is(w.pool.spawns.length, 1);
});
