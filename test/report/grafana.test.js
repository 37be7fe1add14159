// The Grafana dashboard under examples/ may only query what nodesup exposes: every metric, label and
// label value in its PromQL is checked against the exposition of a real registry, and promtool
// parses every expression.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { testWith } from '../helpers/tools.js';
import { createMetrics } from '../../src/report/metrics/metrics.js';
import { MiB, snapshot, slotView } from './fake-snapshot.js';

const FILE = new URL('../../examples/grafana/nodesup-dashboard.json', import.meta.url);
const DS_UID = '${DS_PROMETHEUS}';

const dashboard = JSON.parse(fs.readFileSync(FILE, 'utf8'));
const allPanels = (list = []) => list.flatMap((p) => [p, ...allPanels(p.panels)]);
const panels = allPanels(dashboard.panels).filter((p) => p.type !== 'row');

/** Every PromQL text in the dashboard: panel targets and variable queries, with where it came from. */
function queries() {
  const out = [];
  for (const p of panels) for (const t of p.targets ?? []) out.push({ where: `panel "${p.title}" ${t.refId}`, expr: t.expr, datasource: t.datasource ?? p.datasource });
  for (const v of dashboard.templating?.list ?? []) {
    if (v.type !== 'query') continue;
    const q = typeof v.query === 'string' ? v.query : v.query?.query;
    out.push({ where: `variable $${v.name}`, expr: q, datasource: v.datasource, variable: true });
  }
  return out;
}

// Grafana's variables as Prometheus would see them once substituted.
const substitute = (expr) => expr
  .replace(/\$__(rate_interval|interval|range)/g, '5m')
  .replace(/\$\{?(\w+)\}?/g, '.*');

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** Metric names in one PromQL expression (label_values(metric, label) included). */
export function metricNames(expr) {
  const lv = /^\s*label_values\(\s*([A-Za-z_:][\w:]*)\s*[{,]/.exec(expr);
  if (/^\s*label_values\(/.test(expr)) return lv ? [lv[1]] : [];
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = [];
  for (const m of bare.matchAll(/(?<![\w.$:])[A-Za-z_:][\w:]*/g)) {
    const isCall = /^\s*\(/.test(bare.slice(m.index + m[0].length)); // a function, not a metric
    if (!isCall && !KEYWORDS.has(m[0].toLowerCase())) names.push(m[0]);
  }
  return [...new Set(names)];
}

/** metric{matchers} pairs: [{ metric, matchers: [{ label, op, value }] }]. */
function selectors(expr) {
  const out = [];
  for (const m of expr.matchAll(/([A-Za-z_:][\w:]*)\s*\{([^}]*)\}/g)) {
    const matchers = [...m[2].matchAll(/([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map(([, label, op, value]) => ({ label, op, value }));
    out.push({ metric: m[1], matchers });
  }
  return out;
}

const groupings = (expr) => [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) => m[1].split(',').map((s) => s.trim()).filter(Boolean));

// A heap leak named with six sites, as the read model's row carries it: five series and "other".
const SITE_LEAK = {
  at: Date.now(), kind: 'heap', growthBytesPerSec: 5000,
  sites: Array.from({ length: 6 }, (_, i) => ({ fn: `cache${i}`, file: 'users.js', line: 4 + i, bytesPerMin: 60_000 - i * 1000, share: 1 / 6 })),
};

// A registry fed a fake snapshot and one of each event, so every family has samples.
async function exposition() {
  const events = new EventEmitter();
  const metrics = createMetrics({
    getSnapshot: () => snapshot({
      slots: [slotView(0, { leak: SITE_LEAK }), slotView(1), slotView(2, { state: 'draining' })], cgroup: { limit: 4096 * MiB, current: 1024 * MiB },
    }),
    events, name: 'api',
  });
  events.emit('event', { event: 'worker.recycle', slot: 0, pid: 10, reason: 'rss' });
  events.emit('event', { event: 'worker.exit', slot: 0, pid: 10, planned: true, forced: false, recycleMs: 1500 });
  events.emit('event', { event: 'worker.exit', slot: 1, pid: 11, planned: false, signal: 'SIGKILL' });
  events.emit('event', { event: 'worker.restart', slot: 1, delayMs: 100 });
  const text = await metrics.registry.metrics();
  metrics.close();
  // sample name → { labels: Map<label, Set<value>> }; Prometheus adds instance and job at scrape time.
  const families = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s/.exec(line);
    const fam = families.get(m[1]) ?? { labels: new Map([['instance', new Set()], ['job', new Set()]]) };
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      if (!fam.labels.has(k)) fam.labels.set(k, new Set());
      fam.labels.get(k).add(v);
    }
    families.set(m[1], fam);
  }
  return families;
}

test('the dashboard is an importable Grafana dashboard with a ${DS_PROMETHEUS} input', (t) => {
  t.true(dashboard.schemaVersion >= 36, `schemaVersion ${dashboard.schemaVersion}`);
  t.like(dashboard.__inputs.find((i) => i.name === 'DS_PROMETHEUS'), { type: 'datasource', pluginId: 'prometheus' });
  t.truthy(dashboard.uid);
  t.truthy(dashboard.title);
  const ids = allPanels(dashboard.panels).map((p) => p.id);
  t.is(new Set(ids).size, ids.length, 'panel ids are unique');
  for (const p of panels) {
    t.true(p.gridPos.x >= 0 && p.gridPos.w > 0 && p.gridPos.x + p.gridPos.w <= 24, `"${p.title}" fits the 24-column grid`);
    t.truthy(p.title);
    t.true((p.targets ?? []).length > 0, `"${p.title}" queries something`);
  }
  for (const q of queries()) t.is(q.datasource?.uid, DS_UID, `${q.where} uses the imported Prometheus`);
});

test('every metric, label and label value the dashboard queries exists in a real exposition', async (t) => {
  const families = await exposition();
  const used = new Set();
  for (const { where, expr } of queries()) {
    const names = metricNames(expr);
    t.true(names.length > 0, `${where} names a metric: ${expr}`);
    for (const name of names) {
      used.add(name);
      t.true(families.has(name), `${where}: ${name} is not exposed by nodesup`);
    }
    for (const { metric, matchers } of selectors(expr)) {
      const fam = families.get(metric);
      if (!fam) continue;
      for (const { label, op, value } of matchers) {
        t.true(fam.labels.has(label), `${where}: ${metric} has no label ${label}`);
        if (value.includes('$') || !fam.labels.has(label) || ['instance', 'job'].includes(label)) continue;
        // Literal values (and plain alternations a|b) must be values nodesup produces.
        const literals = op === '=' || op === '!=' ? [value] : /^[\w.-]+(\|[\w.-]+)*$/.test(value) ? value.split('|') : [];
        for (const v of literals) t.true(fam.labels.get(label).has(v), `${where}: ${metric}{${label}="${v}"} never occurs`);
      }
    }
    const labelsHere = new Set(names.flatMap((n) => [...(families.get(n)?.labels.keys() ?? [])]));
    for (const label of groupings(expr)) t.true(labelsHere.has(label), `${where}: grouping by ${label}, which none of ${names.join(', ')} has`);
  }
  t.log(`${used.size} metrics used: ${[...used].sort().join(', ')}`);

  // What the dashboard is for (issue 4): memory per slot with limits, growth, recycles, event loop, GC, states, fds.
  for (const name of [
    'nodesup_worker_rss_bytes', 'nodesup_worker_heap_used_bytes', 'nodesup_worker_native_bytes', 'nodesup_worker_external_bytes',
    'nodesup_worker_limit_bytes', 'nodesup_worker_rss_growth_bytes_per_second', 'nodesup_worker_heap_growth_bytes_per_second',
    'nodesup_recycles_total', 'nodesup_restarts_total', 'nodesup_worker_crashes_total', 'nodesup_recycle_duration_seconds_bucket',
    'nodesup_worker_event_loop_utilization', 'nodesup_worker_event_loop_delay_p99_seconds', 'nodesup_worker_gc_seconds_total',
    'nodesup_workers', 'nodesup_worker_open_fds', 'nodesup_leak_site_bytes_per_second',
  ]) t.true(used.has(name), `the dashboard shows ${name}`);
  const limitKinds = new Set(queries().flatMap(({ expr }) => selectors(expr)).filter((s) => s.metric === 'nodesup_worker_limit_bytes')
    .flatMap((s) => s.matchers.filter((m) => m.label === 'kind').map((m) => m.value)));
  t.deepEqual([...limitKinds].sort(), ['heap', 'native', 'rss'], 'a limit line for rss, heap and native');
});

test('leaking code across the fleet: the site series summed by site over every supervisor, not the one chosen above', (t) => {
  const fleet = panels.filter((p) => (p.targets ?? []).some((x) => x.expr.includes('nodesup_leak_site_bytes_per_second')));
  t.deepEqual(fleet.map((p) => p.title), ['Leaking code across the fleet', 'Supervisors where each site leaks']);
  for (const p of fleet) {
    for (const x of p.targets) {
      t.notRegex(x.expr, /\$instance|\bslot\b|\bpid\b/, `${p.title}: ${x.expr}`);
      t.deepEqual(groupings(x.expr), ['kind', 'site', 'package'], `${p.title}: by site, as the alert NodesupLeakingCode`);
    }
  }
});

test('the extractor finds metrics and skips functions, labels, keywords and durations', (t) => {
  t.deepEqual(metricNames('histogram_quantile(0.99, sum by (le) (increase(nodesup_recycle_duration_seconds_bucket{instance=~"$instance"}[30m])))'), ['nodesup_recycle_duration_seconds_bucket']);
  t.deepEqual(metricNames('sum(a_total{x="y"} offset 5m) / on (slot) group_left (kind) b_bytes'), ['a_total', 'b_bytes']);
  t.deepEqual(metricNames('rate(nodesup_worker_gc_seconds_total{slot=~"$slot"}[$__rate_interval])'), ['nodesup_worker_gc_seconds_total']);
  t.deepEqual(metricNames('label_values(nodesup_workers, instance)'), ['nodesup_workers']);
  t.deepEqual(metricNames('label_values(nodesup_worker_rss_bytes{instance=~"$instance"}, slot)'), ['nodesup_worker_rss_bytes']);
});

testWith('promtool')('promtool parses every expression of the dashboard', (t) => {
  const exprs = queries().filter((q) => !q.variable).map((q) => substitute(q.expr));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodesup-grafana-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'rules.yml');
  // Recording rules are the one place promtool checks PromQL offline.
  fs.writeFileSync(file, YAML.stringify({ groups: [{ name: 'dashboard', rules: exprs.map((expr, i) => ({ record: `dashboard:expr:${i}`, expr })) }] }));
  const run = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
  t.falsy(run.error, 'promtool is on PATH (apt-get install prometheus)');
  t.is(run.status, 0, `${run.stdout}${run.stderr}`);
});
