// The alerting rules under examples/prometheus/: promtool's own unit tests of every alert, the
// PrometheusRule for Kubernetes generated from the same file, and every series and label the rules
// read exposed by a real registry.
import test from 'ava';
import fs from 'node:fs';
import { EventEmitter } from 'node:events';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { testWith } from '../helpers/tools.js';
import { createMetrics } from '../../src/report/metrics/metrics.js';
import { RULES, TARGET, prometheusRule } from '../../examples/prometheus/prometheusrule.js';
import { MiB, snapshot, slotView } from './fake-snapshot.js';

const DIR = fileURLToPath(new URL('../../examples/prometheus/', import.meta.url));
const rulesText = fs.readFileSync(RULES, 'utf8');
const alerts = YAML.parse(rulesText).groups.flatMap((g) => g.rules);
const unitTests = YAML.parse(fs.readFileSync(new URL('nodesup-alerts.test.yaml', `file://${DIR}`), 'utf8'));

const promtool = (...args) => spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8' });

testWith('promtool')('promtool check rules accepts the shipped rules', (t) => {
  const run = promtool('check', 'rules', 'nodesup-alerts.yaml');
  t.is(run.status, 0, `${run.stdout}${run.stderr}`);
  t.regex(run.stdout, new RegExp(`SUCCESS: ${alerts.length} rules found`));
});

testWith('promtool')('promtool test rules: every alert fires when it should, with its runbook filled in, and not when it should not', (t) => {
  const run = promtool('test', 'rules', 'nodesup-alerts.test.yaml');
  t.is(run.status, 0, `${run.stdout}${run.stderr}`);
  t.log(run.stdout.trim());
});

test('the seven alerts, each with a severity, a summary, a description and a runbook that names a nodesup command', (t) => {
  t.deepEqual(alerts.map((a) => a.alert), ['NodesupLeakNamed', 'NodesupRecycleStorm', 'NodesupOOMKill', 'NodesupCrashLoop', 'NodesupWorkersDoNotFit', 'NodesupWorkerNearLimit', 'NodesupLeakingCode']);
  for (const a of alerts) {
    t.true(['warning', 'critical'].includes(a.labels?.severity), `${a.alert} severity`);
    for (const k of ['summary', 'description', 'runbook']) t.truthy(a.annotations?.[k], `${a.alert} ${k}`);
    t.regex(a.annotations.runbook, /nodesup(\.js)?(\{\{ end \}\})? (inspect|status)/, `${a.alert}: the runbook says what to run`);
  }
});

test('the fleet alert is by site across instances, never by slot or pid, and names how to get the profile', (t) => {
  const a = alerts.find((x) => x.alert === 'NodesupLeakingCode');
  t.regex(a.expr, /^sum by \(kind, site, package\) \(nodesup_leak_site_bytes_per_second\{site!="other"\}\)/);
  t.notRegex(`${a.expr} ${Object.values(a.annotations).join(' ')}`, /\$labels\.(slot|pid|instance)\b/, 'labels the sum does not keep');
  t.regex(a.annotations.runbook, /go tool pprof -top http:\/\/<that instance>\/debug\/pprof\/heap/);
  t.regex(a.annotations.runbook, /nodesup inspect <slot> --profile/);
});

test('every alert is tested firing by promtool, and the slot alerts say which slot to inspect', (t) => {
  const fired = new Map();
  for (const c of unitTests.tests) for (const r of c.alert_rule_test ?? []) for (const e of r.exp_alerts ?? []) {
    fired.set(r.alertname, [...(fired.get(r.alertname) ?? []), e]);
  }
  for (const a of alerts) {
    t.true(fired.has(a.alert), `${a.alert} has a case where it fires`);
    if (!a.annotations.runbook.includes('$labels.slot')) continue;
    for (const e of fired.get(a.alert) ?? []) t.true(e.exp_annotations.runbook.includes(`inspect ${e.exp_labels.slot}\``), `${a.alert}: ${e.exp_annotations.runbook}`);
  }
});

test('the PrometheusRule in examples/kubernetes is generated from the same rules file', (t) => {
  const text = fs.readFileSync(TARGET, 'utf8');
  t.is(text, prometheusRule(rulesText), 'out of date: run node examples/prometheus/prometheusrule.js');
  const pr = YAML.parse(text);
  t.like(pr, { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' });
  t.deepEqual(pr.spec.groups, YAML.parse(rulesText).groups);
  const pm = YAML.parse(fs.readFileSync(new URL('podmonitor.yaml', TARGET), 'utf8'));
  t.deepEqual(pr.metadata.labels, pm.metadata.labels, 'selected like the PodMonitor beside it');
});

// A registry fed a fake snapshot and the events behind every counter and judgement.
async function exposition() {
  const events = new EventEmitter();
  const leak = { at: Date.now(), kind: 'heap', growthBytesPerSec: 5000, sites: [{ fn: 'cacheUser', file: 'users.js', line: 4, bytesPerMin: 300_000, share: 1 }] };
  const metrics = createMetrics({
    getSnapshot: () => snapshot({ slots: [slotView(0, { leak }), slotView(1, { leak: { kind: 'handles', types: [{ type: 'Timeout', perSec: 2 }] } })] }),
    events, name: 'api',
  });
  for (const ev of [
    { event: 'leak.warning', slot: 0, pid: 4000, kind: 'heap' },
    { event: 'worker.advice', code: 'overcommit', need: 800 * MiB, limit: 512 * MiB },
    { event: 'worker.exit', slot: 1, pid: 11, planned: false, signal: 'SIGKILL', oomKill: true },
  ]) events.emit('event', ev);
  const text = await metrics.registry.metrics();
  metrics.close();
  const families = new Map();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (!m) continue;
    const labels = families.get(m[1]) ?? new Set();
    for (const [, k] of (m[2] ?? '').matchAll(/(\w+)="/g)) labels.add(k);
    families.set(m[1], labels);
  }
  return families;
}

test('every series the rules read is exposed by nodesup, with every label they use', async (t) => {
  const families = await exposition();
  const TARGET_LABELS = ['instance', 'job', 'pod', 'namespace'];
  for (const a of alerts) {
    const names = [...new Set(a.expr.match(/nodesup_\w+/g))];
    t.true(names.length > 0, a.alert);
    for (const n of names) t.true(families.has(n), `${a.alert}: ${n} is not exposed`);
    const have = new Set(names.flatMap((n) => [...(families.get(n) ?? [])]));
    const grouped = [...a.expr.matchAll(/\b(?:without|ignoring|by|on)\s*\(([^)]*)\)/g)].flatMap((m) => m[1].split(',').map((s) => s.trim()));
    for (const l of grouped) t.true(have.has(l), `${a.alert}: grouping on ${l}, which none of ${names.join(', ')} has`);
    const replaced = [...a.expr.matchAll(/label_replace\([^,]+,\s*"(\w+)"/g)].map((m) => m[1]);
    const templated = Object.values(a.annotations).flatMap((s) => [...s.matchAll(/\$labels\.(\w+)/g)].map((m) => m[1]));
    for (const l of templated) if (!TARGET_LABELS.includes(l)) t.true(have.has(l) || replaced.includes(l), `${a.alert}: {{ $labels.${l} }} is on none of its series`);
  }
});
