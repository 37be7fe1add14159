// The parts of prom-client the primary uses, required one by one. Its index loads all of it
// (Pushgateway, the cluster aggregator, Summary) and its default collectors, one of which
// (process CPU, for exemplars) loads @opentelemetry/api: ~7 MiB of the primary's RSS for
// nothing it serves. prom-client has no exports map; these paths are its lib/ files (15.x).
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const Registry = require('prom-client/lib/registry');
const Gauge = require('prom-client/lib/gauge');
const Counter = require('prom-client/lib/counter');
const Histogram = require('prom-client/lib/histogram');

// prom-client's default collectors, but its process CPU one and its event-loop lag one (below).
const COLLECTORS = ['processStartTime', 'osMemoryHeap', 'processOpenFileDescriptors', 'processMaxFileDescriptors',
  ...(typeof process.getActiveResourcesInfo === 'function' ? ['processResources'] : []),
  'processHandles', 'processRequests', 'heapSizeAndUsed', 'heapSpacesSizeAndUsed', 'version', 'gc'];

/**
 * What prom-client's collectDefaultMetrics registers, the same series under the same names.
 * @param {Registry} registry
 * @param {string} prefix
 */
function collectDefaultMetrics({ register: registry, prefix = '' }) {
  const config = { prefix };
  processCpu(registry, prefix);
  loopLag(registry, prefix);
  for (const name of COLLECTORS) require(`prom-client/lib/metrics/${name}`)(registry, config);
}

// prom-client's processCpuTotal: the three counters, one collect() setting all of them.
function processCpu(registry, prefix) {
  const registers = [registry];
  let last = process.cpuUsage();
  const user = new Counter({
    name: `${prefix}process_cpu_user_seconds_total`, help: 'Total user CPU time spent in seconds.', registers,
    collect() {
      const now = process.cpuUsage();
      user.inc((now.user - last.user) / 1e6);
      system.inc((now.system - last.system) / 1e6);
      total.inc((now.user - last.user + now.system - last.system) / 1e6);
      last = now;
    },
  });
  const system = new Counter({ name: `${prefix}process_cpu_system_seconds_total`, help: 'Total system CPU time spent in seconds.', registers });
  const total = new Counter({ name: `${prefix}process_cpu_seconds_total`, help: 'Total user and system CPU time spent in seconds.', registers });
}

// prom-client's eventLoopLag samples the loop every 10 ms: a timer that wakes the primary a
// hundred times a second whatever it has to do, most of what an idle primary with a few workers
// cost with metrics on (bench/RESULTS.md, primary-cost-together-metrics-lag-8). Its series,
// under the same names, come here from a 100 ms sample, as an idle worker's delay does: a stall
// long enough to make a poll late still shows. The figures are the delay past the timer's
// interval, as the workers' delay is reported; prom-client's include the interval itself.
export const LOOP_LAG_RESOLUTION_MS = 100;
const LAG_STATS = [
  ['min', 'The minimum recorded event loop delay.', (h) => late(h.min)],
  ['max', 'The maximum recorded event loop delay.', (h) => late(h.max)],
  ['mean', 'The mean of the recorded event loop delays.', (h) => late(h.mean)],
  ['stddev', 'The standard deviation of the recorded event loop delays.', (h) => h.stddev / 1e9],
  ...[50, 90, 99].map((p) => [`p${p}`, `The ${p}th percentile of the recorded event loop delays.`, (h) => late(h.percentile(p))]),
];
const late = (ns) => Math.max(0, ns / 1e9 - LOOP_LAG_RESOLUTION_MS / 1e3);

/**
 * @param {Registry} registry
 * @param {string} prefix
 * @param {(o: {resolution: number}) => import('node:perf_hooks').IntervalHistogram} [monitor]
 */
export function loopLag(registry, prefix, monitor = monitorEventLoopDelay) {
  const registers = [registry];
  const histogram = monitor({ resolution: LOOP_LAG_RESOLUTION_MS });
  histogram.enable();
  // As prom-client: the lag itself is how late a setImmediate runs after the scrape asked, so it
  // shows at the next scrape. Registered first: a scrape reads the series in that order, and its
  // collect() sets the others.
  const lag = new Gauge({
    name: `${prefix}nodejs_eventloop_lag_seconds`, help: 'Lag of event loop in seconds.', registers,
    collect() {
      const start = process.hrtime.bigint();
      setImmediate(() => lag.set(Number(process.hrtime.bigint() - start) / 1e9));
      // No sample since the last scrape (scrapes closer than the resolution): the last figures stand.
      if (histogram.count === 0) return;
      for (const [gauge, read] of stats) gauge.set(read(histogram));
      histogram.reset();
    },
  });
  const stats = LAG_STATS.map(([stat, help, read]) => [new Gauge({ name: `${prefix}nodejs_eventloop_lag_${stat}_seconds`, help, registers }), read]);
  return histogram;
}

export default { Registry, Gauge, Counter, Histogram, collectDefaultMetrics };
