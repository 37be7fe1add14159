import test from 'ava';
import { diffConfig } from '../../src/core/config-diff.js';

const base = {
  name: 'api', script: '/a.js', args: [], env: { A: '1' }, nodeArgs: [], workers: 2, pollInterval: 1000,
  limits: { rss: 100, heapUsed: null }, leak: { window: 60_000, minGrowth: 1, action: 'recycle' }, gcBeforeRecycle: true,
  recycle: { readyTimeout: 1, killTimeout: 2, maxConcurrent: 1 }, restart: {}, unresponsive: { timeout: 1 }, metrics: false, log: { level: 'info', format: 'json' }, tui: false,
};

test('nothing changed: nothing listed', (t) => {
  t.deepEqual(diffConfig(base, structuredClone(base)), { changed: [], live: [], rolling: [], needsRestart: [], workers: null });
});

test('limits and timings are live; the app settings roll; the worker count and start-bound keys are told apart', (t) => {
  const d = diffConfig(base, { ...base, limits: { rss: 200, heapUsed: null }, pollInterval: 500, env: { A: '2' }, workers: 3, metrics: { host: '127.0.0.1', port: 1 } });
  t.deepEqual(d.live, ['limits', 'pollInterval']);
  t.deepEqual(d.rolling, ['env']);
  t.deepEqual(d.workers, { from: 2, to: 3 });
  t.deepEqual(d.needsRestart, ['metrics']);
  t.deepEqual(d.changed, ['limits', 'pollInterval', 'env', 'workers', 'metrics']);
});

test('deep equality: key order and copies do not count as changes; a nested value does', (t) => {
  t.deepEqual(diffConfig(base, { ...base, limits: { heapUsed: null, rss: 100 } }).changed, []);
  t.deepEqual(diffConfig(base, { ...base, leak: { ...base.leak, action: 'warn' } }).changed, ['leak']);
  t.deepEqual(diffConfig(base, { ...base, nodeArgs: ['--x'] }).rolling, ['nodeArgs']);
});
