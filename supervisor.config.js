// The config the README quick start uses: two workers of the leaky example, limits low enough
// that a recycle happens within a minute. `nodesup init` writes a fully commented one.
import { defineConfig } from 'nodesup';

export default defineConfig({
  name: 'quickstart',
  workers: 2,
  pollInterval: '1s',
  limits: {
    rss: '128mb',          // per worker, whole process tree
    maxAge: '6h',
  },
  leak: { window: '30s', minGrowth: '1mb/min', action: 'recycle' },
  gcBeforeRecycle: true,
  recycle: { readyTimeout: '30s', killTimeout: '10s', maxConcurrent: 1 },
  metrics: { host: '127.0.0.1', port: 9209 },
  log: { level: 'info', format: 'pretty' },
});
