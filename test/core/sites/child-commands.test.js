// Children by command: cmdline text → one line; the commands that grew; and a children leak
// verdict that carries them, on the recorded children-leak series with commands read every 10 s.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { commandOf, childCommands } from '../../../src/core/sites/child-commands.js';
import { detectLeak } from '../../../src/core/leak/leak-detector.js';
import { SampleWindow } from '../../../src/core/forecast/sample-window.js';
import { parseDuration, parseRate, parseSize } from '../../../src/units.js';

const CMD = [
  ['node\0-e\0setInterval(() => {}, 1000)\0', 'node -e setInterval(() => {}, 1000)'],
  ['/bin/sh\0-c\0sleep 100\0', '/bin/sh -c sleep 100'],
  ['convert\0in.png\0\0', 'convert in.png'],
  ['', null],
  [`node\0-e\0${'x'.repeat(300)}\0`, `node -e ${'x'.repeat(111)}…`],
];
for (const [raw, want] of CMD) test(`commandOf ${JSON.stringify(raw.slice(0, 30))}`, (t) => t.is(commandOf(raw), want));

test('childCommands: the growing command first, with its rate a minute', (t) => {
  const list = childCommands({ t: 0, commands: { 'node -e helper': 2, 'sh -c tail -f log': 1 } }, { t: 120_000, commands: { 'node -e helper': 14, 'sh -c tail -f log': 1 } });
  t.deepEqual(list, [{ command: 'node -e helper', count: 14, perMin: 6 }, { command: 'sh -c tail -f log', count: 1, perMin: 0 }]);
  t.deepEqual(childCommands(null, { t: 5, commands: { a: 1 } }), [{ command: 'a', count: 1, perMin: null }]);
  t.deepEqual(childCommands(null, null), []);
});

const NULLS = Object.fromEntries(['pid', 'pss', 'anon', 'treePss', 'children', 'fds', 'heapLimit', 'arrayBuffers',
  'newSpace', 'gcCount', 'gcMs', 'majorGcCount', 'elu', 'delayP50', 'delayP99', 'requests', 'handles'].map((k) => [k, null]));
test('a children leak names the children\'s commands (recorded series, commands every 10 s)', (t) => {
  const series = JSON.parse(readFileSync(new URL('../../fixtures/series/children-leak.json', import.meta.url), 'utf8'));
  const w = new SampleWindow({ maxAgeMs: 600_000 });
  const t0 = series[0].t;
  for (const s of series) {
    const n = Math.floor((s.t - t0) / 10_000); // one helper every 10 s, as bench/corpus/child-leak.js
    w.push({ ...NULLS, agent: true, ...s, ...((s.t - t0) % 10_000 < 1000 ? { childCommands: { 'node -e const keep = Buffer.alloc(8 * 1048576, 1);': n } } : {}) });
  }
  const v = detectLeak(w, { leak: { window: parseDuration('5m'), minGrowth: parseRate('0.5mb/min'), action: 'recycle' }, limits: { rss: parseSize('1gb') }, now: w.last().t, pollInterval: 1000 });
  t.like(v, { kind: 'children' });
  t.is(v.commands[0].command, 'node -e const keep = Buffer.alloc(8 * 1048576, 1);');
  t.true(v.commands[0].perMin >= 5 && v.commands[0].perMin <= 7, String(v.commands[0].perMin));
});
