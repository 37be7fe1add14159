import test from 'ava';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFIG_TEMPLATE } from '../../src/config/template.js';
import { loadConfig, resolveWorkers } from '../../src/config/load.js';
import { defaultConfig } from '../../src/config/validate.js';

test('the template loads as written and says exactly the defaults', async (t) => {
  const cwd = await mkdtemp(join(tmpdir(), 'nodesup-template-'));
  t.teardown(() => rm(cwd, { recursive: true, force: true }));
  // No nodesup installed here: the template must not need it at run time.
  await writeFile(join(cwd, 'package.json'), '{"type":"module"}');
  await writeFile(join(cwd, 'supervisor.config.js'), CONFIG_TEMPLATE);
  await writeFile(join(cwd, 'server.js'), '');

  const c = await loadConfig({ cwd, script: 'server.js' });
  const { name, script, configFile, workers, balance, balanceFrom, ...rest } = c;
  const { workers: defaultWorkers, balance: defaultBalance, ...defaults } = defaultConfig();
  t.deepEqual(rest, defaults);
  t.is(workers, resolveWorkers(defaultWorkers));
  // Unset, decided at load: this package.json depends on nothing.
  t.is(defaultBalance, null);
  t.is(balance, 'round-robin');
  t.is(balanceFrom, null);
  t.is(name, 'server');
  t.is(configFile, join(cwd, 'supervisor.config.js'));
});

test('the template mentions every key', (t) => {
  const keys = ['name', 'script', 'args', 'env', 'nodeArgs', 'workers', 'pollInterval', 'limits', 'rss', 'heapUsed',
    'native', 'totalRss', 'maxAge', 'maxRequests', 'jitter', 'sustain', 'leak', 'gcBeforeRecycle', 'recycle',
    'readyTimeout', 'killTimeout', 'maxConcurrent', 'restart', 'initialDelay', 'maxDelay', 'maxCrashes', 'crashWindow',
    'unresponsive', 'metrics', 'log', 'diagnose', 'dir', 'level', 'format', 'tui', 'balance', 'stickyHeader'];
  for (const k of keys) t.regex(CONFIG_TEMPLATE, new RegExp(`\\b${k}:`), k);
});
