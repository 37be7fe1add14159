// Children left running, named from the process tree's climb: a staircase of helpers that never
// end is a leak, with its command; a pool that fills and holds, helpers that end after their job,
// a burst that drains, and processes that hold no memory are not.
import test from 'ava';
import { detectChildrenLeak, CHILDREN_THRESHOLDS } from '../../../src/core/leak/children-trend.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';

const MiB = 1024 * 1024;
const T0 = 1_000_000;
const MIN_GROWTH = MiB / 60;
const HELPER = 'node -e const keep = Buffer.alloc(8 * 1048576, 1);';

/** 120 s of samples a second: children(s) processes of mb(s) MiB each, commands read every 10 s. */
function windowOf(children, { mb = () => 48, seconds = 120 } = {}) {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  for (let s = 0; s <= seconds; s++) {
    const n = children(s);
    w.push({ t: T0 + s * 1000, children: n, childrenRss: n * mb(s) * MiB, ...(s % 10 === 0 ? { childCommands: n ? { [HELPER]: n } : {} } : {}) });
  }
  return { window: w, now: T0 + seconds * 1000 };
}

const TABLE = [
  // [title, children at s, MiB each, a leak? (its processes a minute)]
  ['one helper every 10 s, never ended', (s) => Math.floor(s / 10), undefined, 6],
  ['one helper every 20 s, never ended', (s) => Math.floor(s / 20), undefined, 3],
  ['a pool of 4 that filled in the first 20 s and holds', (s) => Math.min(4, Math.floor(s / 5)), undefined, false],
  ['helpers that end after their 3 s job (one every 2 s)', (s) => (s % 2 === 0 ? 2 : 1), undefined, false],
  ['a burst of 12 that drains', (s) => (s < 60 ? Math.floor(s / 5) : Math.max(0, 12 - (s - 60))), undefined, false],
  ['zombies: the count climbs, no memory held', (s) => Math.floor(s / 10), () => 0, false],
  ['one helper a minute (under the climb it takes)', (s) => Math.floor(s / 60), undefined, false],
];
for (const [title, children, mb, leak] of TABLE) {
  test(`detectChildrenLeak: ${title} → ${leak ? 'a leak' : 'nothing'}`, (t) => {
    const { window, now } = windowOf(children, { mb });
    const found = detectChildrenLeak(window, { now, startedAt: T0, minGrowth: MIN_GROWTH });
    t.is(found !== null, Boolean(leak), JSON.stringify(found));
    if (found) {
      t.is(found.kind, 'children');
      t.true(Math.abs(found.processesPerMin - leak) <= 0.1 * leak, String(found.processesPerMin));
      const bytesPerSec = (leak * 48 * MiB) / 60;
      t.true(Math.abs(found.growthBytesPerSec - bytesPerSec) <= 0.1 * bytesPerSec, String(found.growthBytesPerSec));
      t.is(found.children, children(120));
      t.is(found.commands[0].command, HELPER);
      t.true(found.commands[0].perMin > 0);
    }
  });
}

test('detectChildrenLeak: a climb shorter than its window is not judged yet', (t) => {
  const { window, now } = windowOf((s) => Math.floor(s / 5), { seconds: CHILDREN_THRESHOLDS.minSpanMs / 1000 - 5 });
  t.is(detectChildrenLeak(window, { now, startedAt: T0, minGrowth: MIN_GROWTH }), null);
});

test('detectChildrenLeak: a tree the probe cannot see (no counts) is not judged', (t) => {
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  for (let s = 0; s <= 120; s++) w.push({ t: T0 + s * 1000, children: null, childrenRss: null });
  t.is(detectChildrenLeak(w, { now: T0 + 120_000, startedAt: T0, minGrowth: MIN_GROWTH }), null);
});
