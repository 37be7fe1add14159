// The parts of prom-client the primary uses, required one by one. Its index loads all of it
// (Pushgateway, the cluster aggregator, Summary) and its default collectors, one of which
// (process CPU, for exemplars) loads @opentelemetry/api: ~7 MiB of the primary's RSS for
// nothing it serves. prom-client has no exports map; these paths are its lib/ files (15.x).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Registry = require('prom-client/lib/registry');
const Gauge = require('prom-client/lib/gauge');
const Counter = require('prom-client/lib/counter');
const Histogram = require('prom-client/lib/histogram');

// prom-client's default collectors, but its process CPU one (below, without exemplars).
const COLLECTORS = ['processStartTime', 'osMemoryHeap', 'processOpenFileDescriptors', 'processMaxFileDescriptors', 'eventLoopLag',
  ...(typeof process.getActiveResourcesInfo === 'function' ? ['processResources'] : []),
  'processHandles', 'processRequests', 'heapSizeAndUsed', 'heapSpacesSizeAndUsed', 'version', 'gc'];

/**
 * What prom-client's collectDefaultMetrics registers, the same series under the same names.
 * @param {Registry} registry
 * @param {string} prefix
 */
function collectDefaultMetrics({ register: registry, prefix = '' }) {
  const config = { eventLoopMonitoringPrecision: 10, prefix };
  processCpu(registry, prefix);
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

export default { Registry, Gauge, Counter, Histogram, collectDefaultMetrics };
