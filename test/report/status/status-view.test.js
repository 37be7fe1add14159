import test from 'ava';
import { renderStatus, sparkline, visibleWidth, describeRecycle, othersMark, slotIds } from '../../../src/report/status/status-view.js';
import { gcShareLifetime } from '../../../src/report/status/status-columns.js';
import { MiB, NOW, snapshot, slotView } from '../fake-snapshot.js';

const ANSI = /\x1b\[/;
const RED = '\x1b[31m';
const plain = (s) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
const rowOf = (lines, slot) => lines.find((l) => new RegExp(`^[ >]\\s+${slot}\\s+\\d+ `).test(plain(l)));

function assertFits(t, lines, width, height) {
  t.true(lines.length <= height, `${lines.length} lines > ${height}`);
  for (const l of lines) t.true(visibleWidth(l) <= width, `too wide (${visibleWidth(l)} > ${width}): ${JSON.stringify(plain(l))}`);
}

for (const [width, height] of [[80, 24], [160, 50], [100, 30], [60, 20], [40, 12]]) {
  for (const color of [false, true]) {
    test(`${width}x${height} color=${color}: fits, every slot present`, (t) => {
      const snap = snapshot({ slots: 6 });
      const lines = renderStatus(snap, { width, height, selected: 2, color });
      assertFits(t, lines, width, height);
      for (const s of snap.slots) t.truthy(rowOf(lines, s.slot), `slot ${s.slot} missing`);
    });
  }
}

test('80x24 keeps the essential columns and the footer on the last row', (t) => {
  const lines = renderStatus(snapshot(), { width: 80, height: 24, selected: 0 }).map(plain);
  t.is(lines.length, 24);
  const head = lines.find((l) => l.includes('SLOT'));
  for (const title of ['SLOT', 'PID', 'STATE', 'RSS', 'HEAP', 'GROWTH', 'TREND']) t.true(head.includes(title), title);
  t.is(lines.at(-1), 'q quit  ↑↓ select  x recycle  r reload  i inspect  t range  s series');
  t.regex(lines[0], /nodesup api .*pid 1234 .*up 2h00m .*4\/4 ready/);
  t.true(lines.some((l) => /limits rss 512 MiB heap 300 MiB native 250 MiB age 6h00m/.test(l)));
  t.true(lines.some((l) => /cgroup 1\.0 GiB of 4\.0 GiB \(25%\)/.test(l)));
  t.true(lines.some((l) => /total rss 800 MiB of 3\.6 GiB/.test(l)));
  const row = rowOf(lines, 0);
  t.regex(row, /^>\s+0\s+4000 ready\s+1h00m\s+200M\s+80M\/4\.0G/);
  t.true(row.includes('▁') && row.includes('█'), 'sparkline shown');
});

test('160x50 shows every column and the recent recycles with their numbers', (t) => {
  const lines = renderStatus(snapshot(), { width: 160, height: 50, selected: 1 }).map(plain);
  const head = lines.find((l) => l.includes('SLOT'));
  for (const title of ['UP', 'NATIVE', 'ELU', 'P99', 'GC', 'RCY', 'RST']) t.true(head.includes(title), title);
  const time = (ms) => new Date(ms).toTimeString().slice(0, 8);
  t.true(lines.includes(`${time(NOW - 60_000)} slot 1 pid 4242 rss 312 MiB > 300 MiB after 1h00m`));
  t.true(lines.some((l) => l.includes('slot 2 pid 4243 max-age 6h00m > 6h00m')));
  t.true(lines.some((l) => l.startsWith('slot 1  rss MiB, last 5m')), 'detail of the selected slot when tall');
  t.true(lines.some((l) => l.startsWith('rss 200M  heap 80M/100M  external 10M  native 90M')), 'its memory parts');
});

test('12 slots in 24 rows: every slot has a row, nothing overflows', (t) => {
  const snap = snapshot({ slots: 12 });
  const lines = renderStatus(snap, { width: 80, height: 24, selected: 11, message: 'recycle slot 3: done' });
  assertFits(t, lines, 80, 24);
  for (const s of snap.slots) t.truthy(rowOf(lines, s.slot), `slot ${s.slot}`);
  t.true(lines.map(plain).includes('recycle slot 3: done'));
});

test('more slots than rows: a window around the selected one, and a note of what is hidden', (t) => {
  const snap = snapshot({ slots: 40 });
  const lines = renderStatus(snap, { width: 80, height: 24, selected: 30 }).map(plain);
  t.is(lines.length, 24);
  t.truthy(rowOf(lines, 30));
  t.falsy(rowOf(lines, 0));
  t.true(lines.some((l) => /more above, \d+ more below/.test(l)));
  t.is(lines.at(-1), 'q quit  ↑↓ select  x recycle  r reload  i inspect  t range  s series');
});

test('tiny terminals still return at most height lines', (t) => {
  for (const height of [0, 1, 2, 3, 5]) {
    const lines = renderStatus(snapshot({ slots: 12 }), { width: 30, height, selected: 0 });
    assertFits(t, lines, 30, height);
  }
});

test('no ANSI when color is false, colours when true', (t) => {
  const snap = snapshot({ slots: [slotView(0, { last: { treeRss: 500 * MiB } }), slotView(1, { state: 'exited', pid: null, last: null })] });
  t.false(renderStatus(snap, { width: 120, height: 30, selected: 0, color: false }).some((l) => ANSI.test(l)));
  t.true(renderStatus(snap, { width: 120, height: 30, selected: 0, color: true }).some((l) => ANSI.test(l)));
});

test('red at ≥ 90 % of a limit, yellow at ≥ 75 %, none below', (t) => {
  const snap = snapshot({
    slots: [
      slotView(0, { last: { treeRss: 470 * MiB } }), // 92 % of 512
      slotView(1, { last: { treeRss: 400 * MiB } }), // 78 %
      slotView(2, { last: { treeRss: 100 * MiB } }),
    ],
  });
  const lines = renderStatus(snap, { width: 120, height: 30, selected: null, color: true });
  t.true(rowOf(lines, 0).includes(`${RED} 470M`), 'rss cell red');
  t.true(rowOf(lines, 1).includes('\x1b[33m 400M'), 'rss cell yellow');
  t.false(rowOf(lines, 2).includes(RED));
});

test('heap is coloured against the configured heap limit, growth yellow when rising', (t) => {
  const snap = snapshot({ slots: [slotView(0, { last: { heapUsed: 280 * MiB }, trend: { rssPerSec: 2 * MiB / 60, heapPerSec: null } })] });
  const row = rowOf(renderStatus(snap, { width: 120, height: 30, color: true }), 0);
  t.true(row.includes(`${RED}280M/4.0G`));
  t.true(row.includes('\x1b[33m+2.0M/m'));
});

test('selected row is inverse, exited and spawning rows are dim', (t) => {
  const snap = snapshot({ slots: [slotView(0), slotView(1, { state: 'spawning' }), slotView(2, { state: 'exited', pid: null, last: null })] });
  const lines = renderStatus(snap, { width: 100, height: 30, selected: 0, color: true });
  t.true(rowOf(lines, 0).startsWith('\x1b[7m'));
  t.true(rowOf(lines, 1).startsWith('\x1b[2m'));
  t.true(lines.some((l) => l.startsWith('\x1b[2m') && /^\s+2\s+-\s+exited/.test(plain(l))));
});

test("null values show '-' (unknown is not zero)", (t) => {
  const last = { treeRss: null, heapUsed: null, heapLimit: null, native: null, elu: null, delayP99: null, gcMs: null };
  const snap = snapshot({ slots: [slotView(0, { last, history: [], trend: { rssPerSec: null, heapPerSec: null } })] });
  const row = plain(rowOf(renderStatus(snap, { width: 160, height: 30 }), 0));
  t.regex(row, /^\s+0\s+4000 ready\s+1h00m\s+-\s+-\/-\s+-\s+-\s+-\s+-\s+-\s+-\s+0\s+0$/);
  t.false(/\b0B\b/.test(row));
  const exited = renderStatus(snapshot({ slots: [slotView(0, { state: 'exited', pid: null, startedAt: null, last: null })] }), { width: 80, height: 24 });
  t.regex(plain(exited.find((l) => /exited/.test(l))), /^\s+0\s+-\s+exited\s+-\s+-\s+-\/-/);
  t.regex(plain(renderStatus(snapshot({ cgroup: { limit: null, current: null }, slots: [] }), { width: 80 }).join('\n')), /no workers/);
});

test('sparkline', (t) => {
  t.is(sparkline([1, 2, 3, 4, 5, 6, 7, 8], 8), '▁▂▃▄▅▆▇█');
  t.is(sparkline([1, 2, 3, 4, 5, 6, 7, 8], 4), '▁▃▆█', 'the newest values, rescaled');
  t.is(sparkline([5, 5, 5], 10), '▁▁▁', 'flat is low, not noise');
  t.is(sparkline([], 10), '');
  t.is(sparkline([1, 2], 0), '');
  t.is(sparkline([1, null, 8], 3), '▁ █', 'a missing sample is a gap');
  t.is(sparkline([100, 101], 2, { minRange: 700 }), '▁▁', 'minRange flattens noise');
  t.is(sparkline([0, 50, 100], 3).length, 3);
});

test('visibleWidth ignores ANSI and counts wide characters twice', (t) => {
  t.is(visibleWidth('\x1b[31mabc\x1b[39m'), 3);
  t.is(visibleWidth('▁▂▃'), 3);
  t.is(visibleWidth('日本'), 4);
});

test('untrusted text cannot break the layout', (t) => {
  const snap = snapshot({ name: 'evil\nname\x1b[2J' });
  const lines = renderStatus(snap, { width: 80, height: 24, message: { text: 'line1\nline2', level: 'error' } });
  t.false(lines.some((l) => l.includes('\n') || l.includes('\x1b[2J')));
  assertFits(t, lines, 80, 24);
});

test('describeRecycle reads each reason in its own unit', (t) => {
  t.is(describeRecycle({ reason: 'rss', value: 312 * MiB, limit: 300 * MiB }), 'rss 312 MiB > 300 MiB');
  t.is(describeRecycle({ reason: 'leak', value: MiB / 60, limit: MiB / 120 }), 'leak +1.0M/m > +512K/m');
  t.is(describeRecycle({ reason: 'max-requests', value: 1000, limit: 1000 }), 'max-requests 1000 > 1000');
  t.is(describeRecycle({ reason: 'manual', value: null, limit: null }), 'manual');
});

// The two shapes of a recycling slot: a row per worker (old), or one row carrying `others` (new).
const recycling = {
  'a row per worker': () => {
    const snap = snapshot({ slots: 2 });
    snap.slots.splice(1, 0, { ...snap.slots[1], pid: 999, state: 'draining', current: false });
    return snap;
  },
  'one row with others': () => {
    const snap = snapshot({ slots: 2 });
    snap.slots[1] = { ...snap.slots[1], current: true, others: [{ pid: 999, state: 'draining', startedAt: NOW - 7_200_000, readyAt: NOW - 7_190_000, uptimeMs: 7_200_000, retiring: { reason: 'manual', decidedAt: NOW - 5000 }, last: snap.slots[1].last }] };
    return snap;
  },
};
for (const [shape, make] of Object.entries(recycling)) {
  test(`a slot mid-recycle (${shape}): one row, its other worker marked at the right, counted once, its memory in the total`, (t) => {
    const snap = make();
    snap.workers = 2;
    const lines = renderStatus(snap, { width: 160, height: 40, selected: 1 }).map(plain);
    t.true(lines[0].includes('2/2 ready'), lines[0]);
    const rows = lines.filter((l) => /^[ >]\s+1\s/.test(l));
    t.is(rows.length, 1, 'slot 1 shown once');
    t.regex(rows[0], /^>\s+1\s+4001 ready .*▁.*█ ↻ 999 draining\s/, 'the serving worker, selected, its trend, then the draining one marked');
    t.false(lines.some((l) => /^\s+1\s+999\s/.test(l)), 'no row of its own for the draining worker');
    t.true(lines.some((l) => l.includes('total rss 600 MiB')), 'two workers of slot 1 and slot 0');
    t.true(lines.some((l) => l.startsWith('slot 1  rss MiB')), 'the detail pane is the serving worker\'s');
  });
}

test('at 80 columns the mark shortens to the trend cell\'s width and takes it; the row stays within the width', (t) => {
  const lines = renderStatus(recycling['one row with others'](), { width: 80, height: 24, selected: 0 }).map(plain);
  const row = rowOf(lines, 1);
  t.regex(row, /\+0B\/m  ↻ 999 drain  25%$/);
  t.regex(rowOf(lines, 0), /\+0B\/m ▁[▁-█]+  25%$/, 'the slot that is not recycling keeps its trend');
  t.true(visibleWidth(row) <= 80);
});

test('othersMark: the longest form that fits; +n for more than one; nothing without others', (t) => {
  const draining = { pid: 4242, state: 'draining' };
  const cases = [
    [[draining], 40, '↻ 4242 draining'],
    [[draining], 14, '↻ 4242 drain'],
    [[{ pid: 5001, state: 'spawning' }], 12, '↻ 5001 new'],
    [[draining], 11, '↻4242 drain'],
    [[draining], 10, '↻ 4242'],
    [[draining, { pid: 5001, state: 'spawning' }], 40, '↻ 4242 draining +1'],
    [[draining], 3, '↻'],
    [[draining], 0, ''],
    [[], 40, ''],
    [undefined, 40, ''],
  ];
  for (const [others, room, want] of cases) t.is(othersMark(others, room), want, `${JSON.stringify(others)} in ${room}`);
});

test('slotIds: each slot once, in table order, in either shape', (t) => {
  for (const make of Object.values(recycling)) t.deepEqual(slotIds(make()), [0, 1]);
  t.deepEqual(slotIds(null), []);
});

test('the GC column is the lifetime share: gcMs over the time since the worker started', (t) => {
  t.is(gcShareLifetime({ startedAt: NOW - 100_000, last: { t: NOW, gcMs: 5000 } }), 0.05);
  t.is(gcShareLifetime({ startedAt: null, last: { t: NOW, gcMs: 5000 } }), null);
  t.is(gcShareLifetime({ startedAt: NOW, last: { t: NOW, gcMs: 5 } }), null, 'no time alive yet');
  const snap = snapshot({ slots: [slotView(0, { startedAt: NOW - 100_000, last: { gcMs: 5000 } })] });
  t.regex(plain(rowOf(renderStatus(snap, { width: 160, height: 30 }), 0)), / 5\.0% /);
});

test('the fleet limit shown is the one in force: a default the supervisor derived from the container, with no limit in the config', (t) => {
  const limits = { rss: null, heapUsed: null, native: null, totalRss: null, maxAge: null, maxRequests: null, jitter: 0, sustain: 0 };
  const plain = (l) => l.replace(/\x1b\[[0-9;]*m/g, '');
  const lines = renderStatus(snapshot({ limits, cgroup: { limit: 512 * MiB, current: 300 * MiB }, totalRssLimit: 352 * MiB }), { width: 100, height: 30, selected: 0 }).map(plain);
  t.true(lines.some((l) => /total rss 800 MiB of 352 MiB/.test(l)), lines.slice(0, 3).join('\n'));
});
