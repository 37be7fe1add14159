// What a config reload comes to, from the running config and the re-read one: keys bound at start
// keep their running values, a changed app setting rolls the workers, a limit applies live, an
// unchanged config rolls (how a deploy is picked up), and a broken file keeps the running one.
import test from 'ava';
import { reloadConfig } from '../../src/primary/config-reload.js';
import { EVENTS } from '../../src/constants.js';

const RUNNING = {
  name: 'api', script: '/app/server.js', args: [], env: {}, nodeArgs: [], workers: 2, pollInterval: 1000,
  limits: { rss: 100 }, leak: false, gcBeforeRecycle: true, recycle: { maxConcurrent: 1 }, restart: {}, unresponsive: {},
  metrics: { host: '127.0.0.1', port: 9209 }, log: { level: 'info', format: 'json' }, tui: false, configFile: '/app/supervisor.config.js',
};

test('a new limit applies live; a key bound at start keeps its running value and says a restart is needed', async (t) => {
  const r = await reloadConfig(RUNNING, async () => ({ ...RUNNING, limits: { rss: 200 }, metrics: { host: '127.0.0.1', port: 9300 } }));
  t.false(r.rolling);
  t.deepEqual(r.next.limits, { rss: 200 });
  t.deepEqual(r.next.metrics, RUNNING.metrics);
  t.like(r.event, { event: EVENTS.CONFIG_RELOAD, applied: 'live', needsRestart: ['metrics'], file: RUNNING.configFile });
});

test('a changed app setting rolls the workers; so does an unchanged config; a new count resizes', async (t) => {
  t.true((await reloadConfig(RUNNING, async () => ({ ...RUNNING, nodeArgs: ['--max-semi-space-size=16'] }))).rolling);
  const same = await reloadConfig(RUNNING, async () => ({ ...RUNNING }));
  t.true(same.rolling);
  t.deepEqual(same.event.changed, []);
  const more = await reloadConfig(RUNNING, async () => ({ ...RUNNING, workers: 4 }));
  t.deepEqual(more.diff.workers, { from: 2, to: 4 });
});

test('a broken file keeps the running config, with config.invalid naming the error', async (t) => {
  const r = await reloadConfig(RUNNING, async () => { throw new Error('supervisor.config.js: limits.rss: expected a size, got "lots"'); });
  t.false('next' in r);
  t.like(r.event, { event: EVENTS.CONFIG_INVALID, file: RUNNING.configFile, error: 'supervisor.config.js: limits.rss: expected a size, got "lots"' });
});
