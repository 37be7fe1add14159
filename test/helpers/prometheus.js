// A real Prometheus server for one test: scrapes the given targets every second, evaluates the
// given rules every second, stored in a scratch directory, killed and removed at teardown.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { execa } from 'execa';
import YAML from 'yaml';
import { scratch } from './cli.js';

/** The shipped rules with every `for:` cut to 1 s, so a test does not wait out production holds. */
export function quickRules(text) {
  const doc = YAML.parse(text);
  for (const g of doc.groups) for (const r of g.rules) if (r.for) r.for = '1s';
  return YAML.stringify(doc);
}

/** Start `prometheus` on 127.0.0.1:port scraping `targets` (host:port each) as job `nodesup`. */
export function startPrometheus(t, { port, targets, rules = null }) {
  const dir = scratch();
  const config = {
    global: { scrape_interval: '1s', evaluation_interval: '1s', scrape_timeout: '1s' },
    scrape_configs: [{ job_name: 'nodesup', static_configs: [{ targets }] }],
  };
  if (rules) {
    fs.writeFileSync(path.join(dir, 'rules.yaml'), rules);
    config.rule_files = [path.join(dir, 'rules.yaml')];
  }
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), YAML.stringify(config));
  const child = execa('prometheus', [
    `--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
  ], { reject: false, stdin: 'ignore', stdout: 'ignore' });
  let log = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s) => { log = (log + s).slice(-4000); });
  t.teardown(async () => {
    child.kill('SIGKILL');
    await child;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const api = async (p) => {
    const res = await fetch(`http://127.0.0.1:${port}${p}`);
    const body = await res.json();
    if (body.status !== 'success') throw new Error(`${p}: ${JSON.stringify(body)}`);
    return body.data;
  };
  const prom = {
    child, api, log: () => log,
    query: (q) => api(`/api/v1/query?query=${encodeURIComponent(q)}`).then((d) => d.result),
    /** Firing alerts named `name`. */
    firing: async (name) => (await api('/api/v1/alerts')).alerts.filter((a) => a.labels.alertname === name && a.state === 'firing'),
    /** Ask until pred(value) holds: Prometheus' state (targets, alerts, samples) is only seen by asking. */
    async until(read, pred, what, timeout = 3 * 60_000) {
      const deadline = Date.now() + timeout;
      let last;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`prometheus exited while waiting for ${what}:\n${log}`);
        last = await read().catch((err) => err);
        if (!(last instanceof Error) && pred(last)) return last;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last).slice(0, 1500)}`);
        await delay(500);
      }
    },
  };
  return prom;
}
