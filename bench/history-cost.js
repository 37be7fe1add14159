// What the slot history (src/report/history/slot-history.js) costs the primary: each slot's rings filled
// with a full 6 hours of 1 s polls (so both rings are full and wrap) and its event list filled
// with leak warnings carrying three sites, at 8 and at 128 slots. Memory is measured, not
// computed: the heap and array-buffer growth after a full GC, in a fresh child process per fleet
// size (node --expose-gc), beside the typed arrays' own byte count.
//   node bench/history-cost.js [--write] [--slots 8,128]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EventEmitter } from 'node:events';
import { benchArgs } from './lib/args.js';
import { publish, table } from './lib/results.js';
import { createSlotHistory, MAX_EVENTS, MAX_MARKS, FINE_SPAN_MS, COARSE_MS, COARSE_SPAN_MS } from '../src/report/history/slot-history.js';
import { EVENTS } from '../src/constants.js';

const HOURS = 6;
const POLL_MS = 1000;

// In the child: fill `slots` slots and print what it took.
async function measure(slots) {
  const mem = () => { globalThis.gc(); globalThis.gc(); const m = process.memoryUsage(); return { heap: m.heapUsed, ab: m.arrayBuffers, rss: m.rss }; };
  const events = new EventEmitter();
  const before = mem();
  const h = createSlotHistory(events, { pollInterval: POLL_MS });
  const sites = [1, 2, 3].map((i) => ({ fn: `remember${i}`, file: 'lib/cache/remember.js', line: 10 * i, column: 5, bytesPerMin: 1_500_000, share: 0.3 }));
  const t0 = Date.UTC(2026, 0, 1);
  const points = (HOURS * 3600_000) / POLL_MS;
  const started = process.hrtime.bigint();
  for (let k = 0; k < points; k++) {
    const t = t0 + k * POLL_MS;
    for (let slot = 0; slot < slots; slot++) {
      const rss = 60e6 + (k % 40) * 2e6;
      events.emit('sample', { slot, pid: 1000 + slot, sample: { t, treeRss: rss, rss, heapUsed: rss / 2, external: 2e6, native: rss / 4, childrenRss: 0, gcMs: k * 3, delayP99: 2.5 } });
    }
  }
  const ingestNs = Number(process.hrtime.bigint() - started) / (points * slots);
  for (let e = 0; e < MAX_MARKS; e++) {
    for (let slot = 0; slot < slots; slot++) {
      events.emit('event', { event: EVENTS.WORKER_RECYCLE, slot, pid: 1000 + slot, reason: 'rss', value: 140e6, limit: 134e6 }, { level: 'info', time: t0 + e });
    }
  }
  for (let e = 0; e < MAX_EVENTS; e++) {
    for (let slot = 0; slot < slots; slot++) {
      events.emit('event', { event: EVENTS.LEAK_WARNING, slot, pid: 1000 + slot, kind: 'heap', growthBytesPerSec: 35_000, projectedLimitInSec: 120, sites }, { level: 'warn', time: t0 + e });
    }
  }
  const after = mem();
  // The fleet trail every status snapshot builds: 20 snapshots, the last 10 timed (warm).
  const now = t0 + points * POLL_MS;
  let q0 = 0n;
  for (let round = 0; round < 20; round++) {
    if (round === 10) q0 = process.hrtime.bigint();
    for (let slot = 0; slot < slots; slot++) h.range(slot, { now, rangeMs: 5 * 60_000, points: 60, series: ['rss'], events: false });
  }
  const trailUs = Number(process.hrtime.bigint() - q0) / 1000 / slots / 10;
  const json = JSON.stringify(h.dump(0)).length;
  return { slots, ringBytes: h.bytes(), heap: after.heap - before.heap, ab: after.ab - before.ab, ingestNs, trailUs, json };
}

if (process.argv[2] === '--child') {
  process.stdout.write(JSON.stringify(await measure(Number(process.argv[3]))));
} else {
  const opts = benchArgs({ slots: { type: 'string', default: '8,128' } }, 'node bench/history-cost.js [--write] [--slots 8,128]');
  const me = fileURLToPath(import.meta.url);
  const rows = opts.slots.split(',').map(Number).map((n) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', me, '--child', String(n)], { encoding: 'utf8' })));
  const kib = (b) => (b / 1024).toFixed(1);
  const body = [
    `Each slot filled with ${HOURS} h of ${POLL_MS} ms polls (${(HOURS * 3600_000) / POLL_MS} samples: both rings full and wrapped) and its event lists full: ${MAX_MARKS} recycles (the chart's marks) and ${MAX_EVENTS} leak warnings with 3 sites each. Kept: ${FINE_SPAN_MS / 60_000} min at full resolution, ${COARSE_SPAN_MS / 3600_000} h as the peak of each ${COARSE_MS / 1000} s. Measured in a fresh \`node --expose-gc\` per fleet size: JS heap and ArrayBuffer growth after two full GCs.`,
    '',
    table(['slots', 'rings (typed arrays) per slot, KiB', 'measured heap + array buffers per slot, KiB', 'total, MiB', 'ingest per sample, ns', 'fleet trail (5 min, 60 points) per slot per snapshot, µs', 'one slot as `history --json`, KiB'],
      rows.map((r) => [r.slots, kib(r.ringBytes / r.slots), kib((r.heap + r.ab) / r.slots), ((r.heap + r.ab) / 1024 ** 2).toFixed(2), Math.round(r.ingestNs), r.trailUs.toFixed(1), kib(r.json)])),
    '',
    'The rings: 1801 full-resolution points × 36 bytes (a Float64 time, seven Float32 series), 720 coarse points × 36 bytes and 600 marks × 24 bytes. The rest of the measured cost is the 100 kept leak warnings with their sites (small objects), which a slot without leaks does not pay. The cost is per slot and does not grow with time or with recycles; the fleet trail is what every `status` snapshot adds per slot (the 8-slot figure is mostly JIT warm-up: 80 calls in all).',
  ].join('\n');
  publish(opts, 'history-cost', "The slot history's memory: per slot, at 8 and 128 slots", body);
}
