// Which code leaks across a fleet: one real Prometheus scrapes three nodesup instances running the
// same leaking app from the bench corpus, as three pods would. A topk over the site metric names the
// leaking function and file; the shipped NodesupLeakingCode alert fires once for it, counting the
// three instances and naming one; that instance serves the leak's profile for a profiler's scraper.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, freePort, writeConfig, scratch, ROOT } from '../helpers/cli.js';
import { startPrometheus, quickRules } from '../helpers/prometheus.js';
import { decodePprof } from '../helpers/pprof.js';
import { testWith } from '../helpers/tools.js';

const MINUTES = 60_000;
const LEAKY = path.join(ROOT, 'bench/corpus/hidden-leak/server.js');
const USERS = path.join(ROOT, 'bench/corpus/hidden-leak/users.js');
const RULES = path.join(ROOT, 'examples/prometheus/nodesup-alerts.yaml');
const SITE = `cacheUser ${USERS}`;

testWith('prometheus')('three instances of one leaking app: a topk over nodesup_leak_site_bytes_per_second names the leaking site', async (t) => {
  t.timeout(7 * MINUTES);
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ports = await Promise.all([0, 1, 2].map(() => freePort()));
  const targets = ports.map((p) => `127.0.0.1:${p}`);
  // Three pods: the same app, the same supervisor name, each its own metrics port, run dir and disk.
  const runs = await Promise.all(ports.map(async (mport, i) => {
    const cfg = writeConfig(t, {
      workers: 1, pollInterval: '500ms', metrics: `127.0.0.1:${mport}`, diagnose: { dir: path.join(dir, `pod${i}`) },
      leak: { window: '8s', minGrowth: '1mb/min', action: 'warn', warmUp: '0s' },
    });
    return startCli(t, [LEAKY, '-c', cfg], { env: { PORT: String(await freePort()), LEAK_MB_PER_MIN: '30', CHURN_MB_PER_SEC: '1' } });
  }));
  const prom = startPrometheus(t, { port: await freePort(), targets, rules: quickRules(fs.readFileSync(RULES, 'utf8')) });

  // Each instance names the site, from its own leak's confirmation points.
  const counted = await prom.until(() => prom.query(`count by (site) (nodesup_leak_site_bytes_per_second{site!="other"})`),
    (r) => r.length === 1 && r[0].value[1] === '3', 'the site scraped from all three instances', 5 * MINUTES);
  t.is(counted[0].metric.site, SITE);
  for (const run of runs) t.true(run.events.some((e) => e.event === 'leak.warning' && e.kind === 'heap'), 'each instance named the leak in its log too');

  const top = await prom.query('topk(1, sum by (kind, site, package) (nodesup_leak_site_bytes_per_second))');
  t.is(top.length, 1);
  t.deepEqual(top[0].metric, { kind: 'heap', site: SITE });
  const rate = Number(top[0].value[1]);
  t.true(rate > 0, `${rate} B/s`);
  t.log(`topk(1, sum by (kind, site, package) (nodesup_leak_site_bytes_per_second)) → ${JSON.stringify(top[0].metric)} ${Math.round(rate)} B/s (${(rate * 60 / 1048576).toFixed(1)} MiB/min across 3 instances)`);
  const perInstance = await prom.query(`nodesup_leak_site_bytes_per_second{site=${JSON.stringify(SITE)}}`);
  t.deepEqual(perInstance.map((r) => r.metric.instance).sort(), [...targets].sort());
  for (const r of perInstance) {
    t.deepEqual(Object.keys(r.metric).sort(), ['__name__', 'holder', 'instance', 'job', 'kind', 'site'].filter((k) => k !== 'holder' || r.metric.holder), 'no pid, slot or line label');
    t.log(`  ${r.metric.instance}: ${Math.round(Number(r.value[1]))} B/s`);
  }
  const series = await prom.query('count(nodesup_leak_site_bytes_per_second)');
  t.true(Number(series[0].value[1]) <= 3 * 6, 'at most five sites and other, per kind and instance');

  // The fleet alert: once, by site, counting the three, naming the instance where it leaks most.
  // Its annotations are rendered at each evaluation: one that missed a scrape of a loaded instance counts two.
  const [alert] = await prom.until(() => prom.firing('NodesupLeakingCode'), (a) => a.length === 1 && / in 3 instance\(s\), /.test(a[0].annotations.description),
    'NodesupLeakingCode firing, counting the three instances');
  t.like(alert.labels, { alertname: 'NodesupLeakingCode', kind: 'heap', site: SITE, severity: 'warning' });
  t.false('instance' in alert.labels);
  const where = /^It leaks most on (\S+):/.exec(alert.annotations.runbook)?.[1];
  t.true(targets.includes(where), alert.annotations.runbook);
  t.log(`${alert.labels.alertname}: ${alert.annotations.summary} | ${alert.annotations.runbook}`);

  // There, the profile a profiler's scraper would pull.
  const res = await fetch(`http://${where}/debug/pprof/heap`);
  t.is(res.status, 200);
  const p = decodePprof(Buffer.from(await res.arrayBuffer()));
  t.like(p.samples[0].stack[0], { fn: 'cacheUser', file: USERS });
});
