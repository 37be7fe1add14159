// The Kubernetes example and the Dockerfile (docs/kubernetes.md) stay true to Kubernetes, the CLI
// and the config schema: every manifest passes its Kubernetes schema strictly (kubernetes-models,
// and the Prometheus Operator's CRDs), the grace period covers the drain, the probes hit nodesup's
// endpoints, and every flag they pass to `nodesup start` exists. No cluster, no Docker: files only.
import test from 'ava';
import { KILL_GRACE_MS } from '../src/primary/recycle/recycler.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { validateConfig } from '../src/config/validate.js';
import { resolveWorkers } from '../src/config/load.js';
import { resolveTotalLimit } from '../src/core/policy/policy.js';
import { oomGroupAdvice } from '../src/core/policy/fit.js';
import { BOUNDS } from '../src/report/profiles/diagnose-dir.js';
import { ROOT, BIN } from './helpers/cli.js';
import { loadModels, schemaErrors } from './helpers/k8s-schema.js';
import { RULES, prometheusRule } from '../examples/prometheus/prometheusrule.js';

const { models, why } = await loadModels();
// kubernetes-models declares node >=22; it runs on Node 20 today. Should a release stop, Node 20
// skips saying so, and the lines CI runs (22 and up) still fail.
const schemaTest = models || Number(process.versions.node.split('.')[0]) >= 22
  ? test
  : (title, ...rest) => test.skip(`${title} [skipped: ${why}]`, ...rest);

const K8S = path.join(ROOT, 'examples/kubernetes');
const DOCKERFILE = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
// The Node lines CI runs the suite on, beside the machine's own: `lines="${NODESUP_CI_NODE_LINES:-22 24 26}"`.
const CI_LINES = fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8').match(/NODESUP_CI_NODE_LINES:-([\d ]+)\}/)[1].trim().split(/\s+/).map(Number);

const yamlFiles = fs.readdirSync(K8S).filter((f) => /\.ya?ml$/.test(f));
const docs = yamlFiles.flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(K8S, f), 'utf8')).map((d) => ({ file: f, doc: d })));
const objects = docs.map(({ doc }) => doc.toJS());
const ofKind = (kind) => objects.filter((o) => o?.kind === kind);
const deployment = ofKind('Deployment')[0];
const pod = deployment?.spec.template.spec;
const container = pod?.containers[0];

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(text) {
  return text.replace(/\\\r?\n/g, ' ').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
    .map((l) => { const [, op, rest] = /^(\S+)\s*(.*)$/.exec(l); return { op: op.toUpperCase(), rest }; });
}
const dockerOps = instructions(DOCKERFILE);
const lastOp = (op) => dockerOps.filter((i) => i.op === op).at(-1);

/** The ConfigMap's supervisor config, evaluated as nodesup would and validated by the real schema. */
async function mountedConfig() {
  const volume = pod.volumes.find((v) => v.configMap);
  const mount = container.volumeMounts.find((m) => m.name === volume.name);
  const configMap = ofKind('ConfigMap').find((c) => c.metadata.name === volume.configMap.name);
  const configFlag = container.args[container.args.indexOf('--config') + 1];
  const key = path.posix.relative(mount.mountPath, configFlag);
  const text = configMap.data[key];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodesup-k8s-'));
  const file = path.join(dir, key);
  fs.writeFileSync(file, text);
  try {
    const mod = await import(pathToFileURL(file).href);
    return { key, configFlag, config: validateConfig(mod.default, key) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const quantity = (q) => {
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G)?$/.exec(String(q));
  const unit = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9 }[m[2]] ?? 1;
  return Number(m[1]) * unit;
};

test('every YAML in examples/kubernetes parses without errors or warnings', (t) => {
  t.true(yamlFiles.length >= 3, `found ${yamlFiles.join(', ')}`);
  for (const { file, doc } of docs) {
    t.deepEqual(doc.errors.map(String), [], `${file}: errors`);
    t.deepEqual(doc.warnings.map(String), [], `${file}: warnings`);
  }
  for (const kind of ['Deployment', 'ConfigMap', 'Service']) t.is(ofKind(kind).length, 1, `one ${kind}`);
});

schemaTest('every manifest passes its Kubernetes schema strictly: the API types, and the CRDs of PodMonitor and PrometheusRule', (t) => {
  t.truthy(models, why ?? '');
  for (const { file, doc } of docs) {
    const o = doc.toJS();
    t.deepEqual(schemaErrors(models, o), [], `${file}: ${o?.kind}`);
  }
  for (const kind of ['Deployment', 'ConfigMap', 'Service', 'PodMonitor', 'PrometheusRule']) t.true(ofKind(kind).length > 0, `${kind} checked`);
  // The rules file the PrometheusRule is generated from, as it would be generated now.
  const generated = parseAllDocuments(prometheusRule(fs.readFileSync(RULES, 'utf8')))[0].toJS();
  t.deepEqual(schemaErrors(models, generated), [], 'PrometheusRule generated from examples/prometheus/nodesup-alerts.yaml');
});

schemaTest('the schema check fails a misspelled field, a wrong type and an unknown kind, where the library\'s own validate() passes the misspelling', (t) => {
  const broken = structuredClone(deployment);
  const c = broken.spec.template.spec.containers[0];
  c.livenessProbe.httpget = c.livenessProbe.httpGet;
  delete c.livenessProbe.httpGet;
  const Deployment = models.get('apps/v1/Deployment');
  // Why the check walks keys: the OpenAPI-derived schema alone accepts what it does not name…
  t.notThrows(() => new Deployment(broken).validate(), 'kubernetes-models alone accepts unknown fields');
  // … (and then misses the probe's required handler: httpGet is optional in the schema).
  const misspelled = schemaErrors(models, broken);
  t.deepEqual(misspelled, ['/spec/template/spec/containers/0/livenessProbe/httpget: unknown field, not in the schema (did you mean "httpGet"?)']);

  const types = structuredClone(deployment);
  types.spec.replicas = '2';
  types.spec.template.spec.containers[0].ports[0].containerPort = '3000';
  types.spec.template.spec.containers[0].livenessProbe.httpGet.port = 9209.5;
  const typeErrors = schemaErrors(models, types);
  t.true(typeErrors.includes('/spec/replicas: must be integer'), typeErrors.join('\n'));
  t.true(typeErrors.includes('/spec/template/spec/containers/0/ports/0/containerPort: must be integer'), typeErrors.join('\n'));
  t.true(typeErrors.some((e) => e.startsWith('/spec/template/spec/containers/0/livenessProbe/httpGet/port: ')), 'an int-or-string port that is neither');

  const crd = structuredClone(ofKind('PodMonitor')[0]);
  crd.spec.podMetricsEndpoints[0].intervall = crd.spec.podMetricsEndpoints[0].interval;
  const rule = structuredClone(ofKind('PrometheusRule')[0]);
  rule.spec.groups[0].rules[0].for = 600;
  const crdErrors = [...schemaErrors(models, crd), ...schemaErrors(models, rule)];
  t.deepEqual(crdErrors, ['/spec/podMetricsEndpoints/0/intervall: unknown field, not in the schema', '/spec/groups/0/rules/0/for: must be string']);

  t.deepEqual(schemaErrors(models, { ...deployment, apiVersion: 'extensions/v1beta1' }), ['/: no schema for apiVersion extensions/v1beta1 kind Deployment']);
  t.log([...misspelled, ...typeErrors, ...crdErrors].join('\n'));
});

test('the mounted config validates and sets totalRss 90%, a per-worker rss and --max-semi-space-size (incident 1)', async (t) => {
  const { key, config } = await mountedConfig();
  t.regex(key, /\.mjs$/, 'ESM in a directory without package.json must be .mjs');
  t.deepEqual(config.limits.totalRss, { fraction: 0.9 });
  t.true(config.limits.rss > 0);
  t.true(config.nodeArgs.includes('--max-semi-space-size=16'));
});

test('terminationGracePeriodSeconds covers preStop + killTimeout + the SIGKILL grace', async (t) => {
  const { config } = await mountedConfig();
  const preStop = container.lifecycle?.preStop?.exec?.command;
  const preStopMs = preStop?.[0] === 'sleep' ? Number(preStop[1]) * 1000 : 0;
  const graceMs = pod.terminationGracePeriodSeconds * 1000;
  t.true(graceMs > config.recycle.killTimeout, 'above killTimeout');
  t.true(graceMs > preStopMs + config.recycle.killTimeout + KILL_GRACE_MS,
    `grace ${graceMs} ms > preStop ${preStopMs} + killTimeout ${config.recycle.killTimeout} + ${KILL_GRACE_MS}`);
});

test('the memory budget nests: rss × workers ≤ totalRss < the pod limit; V8 heap below rss', async (t) => {
  const { config } = await mountedConfig();
  const { limits, requests } = container.resources;
  t.truthy(requests?.memory, 'memory request');
  t.truthy(limits?.memory, 'memory limit');
  const podLimit = quantity(limits.memory);
  const workers = resolveWorkers(config.workers, { parallelism: 64, cpuQuota: limits.cpu ? quantity(limits.cpu) : null });
  t.true(workers <= 8, `workers 'max' follows the CPU limit, got ${workers}`);
  const total = resolveTotalLimit(config.limits.totalRss, podLimit);
  t.true(config.limits.rss * workers <= total, `${workers} × rss ${config.limits.rss} ≤ totalRss ${total}`);
  t.true(total < podLimit);
  const oldSpace = config.nodeArgs.map((a) => /^--max-old-space-size=(\d+)$/.exec(a)).find(Boolean);
  if (oldSpace) t.true(Number(oldSpace[1]) * 2 ** 20 < config.limits.rss, '--max-old-space-size below limits.rss');
});

test('under memory.oom.group (Kubernetes 1.28+ on cgroup v2) the example\'s limits.rss leaves each worker\'s share: no oom-group advice', async (t) => {
  const { config } = await mountedConfig();
  const podLimit = quantity(container.resources.limits.memory);
  const workers = resolveWorkers(config.workers, { parallelism: 64, cpuQuota: quantity(container.resources.limits.cpu) });
  // The primary and tini: the ~100 MiB docs/kubernetes.md budgets (66-75 MiB measured, bench/RESULTS.md).
  const advice = oomGroupAdvice({ oomGroup: true, cgroupLimit: podLimit, primaryRss: 100 * 2 ** 20, workers, rssLimit: config.limits.rss });
  t.is(advice, null, JSON.stringify(advice));
});

test('diagnose.dir is a directory below an on-disk emptyDir whose sizeLimit holds what nodesup keeps there', async (t) => {
  const { config } = await mountedConfig();
  const dir = config.diagnose.dir;
  t.true(typeof dir === 'string' && path.posix.isAbsolute(dir), `an absolute diagnose.dir, got ${dir}`);
  const mount = container.volumeMounts.find((m) => dir.startsWith(`${m.mountPath}/`));
  t.truthy(mount, `a volume mounted above ${dir}`);
  // Below the mount, not at it: an emptyDir is root's, and nodesup writes only to a directory it owns.
  t.not(path.posix.relative(mount.mountPath, dir), '');
  t.not(mount.readOnly, true);
  const volume = pod.volumes.find((v) => v.name === mount.name);
  t.truthy(volume.emptyDir, 'an emptyDir');
  t.not(volume.emptyDir.medium, 'Memory', 'on disk: a tmpfs counts in the container\'s memory limit');
  // Past its sizeLimit the kubelet evicts the pod: room for the bound and a file being written.
  t.true(quantity(volume.emptyDir.sizeLimit) >= 2 * BOUNDS.maxBytes, `sizeLimit ${volume.emptyDir.sizeLimit} ≥ 2 × ${BOUNDS.maxBytes} B`);
  t.false(container.volumeMounts.some((m) => m !== mount && dir.startsWith(`${m.mountPath}/`)), 'not shared with another mount');
});

test('probes hit /healthz and /readyz on the metrics port, which Prometheus is told to scrape', async (t) => {
  const { config } = await mountedConfig();
  const portOf = (p) => (typeof p === 'number' ? p : container.ports.find((x) => x.name === p)?.containerPort);
  t.is(container.livenessProbe.httpGet.path, '/healthz');
  t.is(container.readinessProbe.httpGet.path, '/readyz');
  const dockerMetrics = JSON.parse(lastOp('ENTRYPOINT').rest);
  const metricsFlag = dockerMetrics[dockerMetrics.indexOf('--metrics') + 1];
  const port = Number(metricsFlag.split(':').at(-1));
  t.is(portOf(container.livenessProbe.httpGet.port), port);
  t.is(portOf(container.readinessProbe.httpGet.port), port);
  t.is(config.metrics.port, port);
  const ann = deployment.spec.template.metadata.annotations;
  t.is(ann['prometheus.io/scrape'], 'true');
  t.is(ann['prometheus.io/port'], String(port));
  t.is(ann['prometheus.io/path'], '/metrics');
  for (const pm of ofKind('PodMonitor')) t.true(pm.spec.podMetricsEndpoints.every((e) => portOf(e.port) === port && e.path === '/metrics'));
  const service = ofKind('Service')[0];
  t.true(service.spec.ports.every((p) => container.ports.some((c) => c.name === p.targetPort || c.containerPort === p.targetPort)), 'Service targets a container port');
});

test('every `nodesup start` flag in the Dockerfile and the manifests exists in `start --help`', (t) => {
  const help = execFileSync(process.execPath, [BIN, 'start', '--help'], { encoding: 'utf8' });
  const known = new Set(help.match(/(?<![\w-])--?[a-zA-Z][\w-]*/g));
  const entry = JSON.parse(lastOp('ENTRYPOINT').rest);
  const cmd = JSON.parse(lastOp('CMD').rest);
  const argv = [...entry.slice(entry.indexOf('start') + 1), ...cmd, ...container.args];
  const flags = argv.filter((a) => a.startsWith('-')).map((a) => a.split('=')[0]);
  t.true(flags.length >= 2);
  for (const f of flags) t.true(known.has(f), `${f} is a flag of nodesup start`);
  t.false(argv.some((a) => a === '--'), 'no app args slipped in');
});

test('the Dockerfile: official node:<line>-slim of the newest line CI tests, npm ci --omit=dev, non-root USER, exec-form ENTRYPOINT running nodesup start', (t) => {
  const from = dockerOps.find((i) => i.op === 'FROM').rest.match(/^node:(\d+)-slim\b/);
  t.truthy(from, 'FROM node:<major>-slim');
  t.is(Number(from?.[1]), Math.max(...CI_LINES), `the newest of the lines .ci/run tests (${CI_LINES.join(', ')})`);
  t.true(dockerOps.some((i) => i.op === 'RUN' && /npm ci --omit=dev/.test(i.rest)));
  const user = lastOp('USER');
  t.truthy(user, 'a USER instruction');
  t.false(/^(root|0)(:|$)/.test(user.rest), `USER ${user.rest} is not root`);
  t.true(dockerOps.indexOf(user) < dockerOps.indexOf(lastOp('ENTRYPOINT')), 'USER comes before ENTRYPOINT');
  for (const op of ['ENTRYPOINT', 'CMD']) {
    const { rest } = lastOp(op);
    t.true(rest.startsWith('['), `${op} in exec form`);
    t.true(Array.isArray(JSON.parse(rest)), `${op} is a JSON array`);
  }
  const entry = JSON.parse(lastOp('ENTRYPOINT').rest);
  const node = entry.indexOf('node');
  t.deepEqual(entry.slice(node, node + 3), ['node', 'bin/nodesup.js', 'start']);
  t.true(node === 0 || /(^|\/)tini$/.test(entry[0]), 'PID 1 is node or tini');
  if (/(^|\/)tini$/.test(entry[0])) t.false(entry.slice(1, node).includes('-g'), 'tini signals the primary only, not the group');
  t.deepEqual(JSON.parse(lastOp('CMD').rest), ['examples/http-server/server.js']);
  for (const f of ['bin/nodesup.js', 'examples/http-server/server.js']) t.true(fs.existsSync(path.join(ROOT, f)), `${f} exists`);
});
