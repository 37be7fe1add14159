// One judgement, three readers: `status --json`, `inspect --json` and /metrics name the same leak
// and the same trend for a worker at the same tick, since each reads what the tick decided.
import test from 'ava';
import path from 'node:path';
import { startCli, freePort, ROOT, writeConfig, get } from '../helpers/cli.js';
import { connect } from '../../src/control/client.js';

const corpus = (name) => path.join(ROOT, 'bench/corpus', `${name}.js`);

// `name{labels} value` lines of an exposition, for one metric.
function series(text, name) {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`)).map((l) => {
    const labels = Object.fromEntries([...l.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    return { labels, value: Number(l.slice(l.lastIndexOf(' ') + 1)) };
  });
}

test('status, inspect and metrics agree on a worker\'s leak and trend at the same tick', async (t) => {
  t.timeout(4 * 60_000);
  const metricsPort = await freePort();
  const cfg = writeConfig(t, {
    workers: 1, pollInterval: '1s', limits: { rss: '1gb' }, leak: { window: '10s', minGrowth: '1mb/min', action: 'warn', warmUp: '0s' },
    metrics: { host: '127.0.0.1', port: metricsPort },
  });
  const run = startCli(t, [corpus('heap-leak-fast'), '-c', cfg], { env: { PORT: String(await freePort()), LEAK_MB_PER_MIN: '30' } });
  // Named after a suspicion's four full-GC points 20 s apart: 75-90 s on an idle 2-core host, and
  // the suspicion waits for the heap's rise to show across two GCs, which a loaded host spaces out.
  const warning = await run.waitFor((e) => e.event === 'leak.warning', { timeout: 3 * 60_000, what: 'the leak named' });
  // One connection, as `nodesup status` keeps one: the readers are asked within milliseconds.
  const conn = connect({ dir: run.runDir });
  t.teardown(() => conn.close());
  const ask = (op, args = {}) => conn.request(op, args, { timeoutMs: 10_000 });

  // Three readers asked one after another: taken as one look when the tick did not move meanwhile.
  let look = null;
  for (let i = 0; i < 30 && !look; i++) {
    const before = (await ask('status')).slots[0];
    const metrics = (await get(`http://127.0.0.1:${metricsPort}/metrics`)).body;
    const inspect = await ask('inspect', { slot: 0 });
    const after = (await ask('status')).slots[0];
    if (before.judgedAt !== null && before.judgedAt === after.judgedAt && inspect.judgedAt === before.judgedAt) look = { status: before, metrics, inspect };
  }
  t.truthy(look, 'three readers within one tick, once in 30 tries');
  const { status, metrics, inspect } = look;
  t.is(status.pid, warning.pid);
  t.like(status.leak, { kind: 'heap' });
  t.deepEqual(inspect.leak, status.leak);
  t.deepEqual(inspect.trend, status.trend);
  t.true(status.trend.rssPerSec !== null, 'a trend to compare');
  const leakGauge = series(metrics, 'nodesup_worker_leak_bytes_per_second').find((s) => s.labels.slot === '0');
  t.like(leakGauge, { labels: { kind: status.leak.kind }, value: status.leak.growthBytesPerSec });
  const trendGauge = series(metrics, 'nodesup_worker_rss_growth_bytes_per_second').find((s) => s.labels.slot === '0');
  t.is(trendGauge.value, status.trend.rssPerSec);
});
