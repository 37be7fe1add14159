// nodesup_reloads_total{result}: every result's series from the start, one count per `reload` event.
import test from 'ava';
import { EventEmitter } from 'node:events';
import { createMetrics } from '../../../src/report/metrics/metrics.js';
import { EVENTS } from '../../../src/constants.js';
import { snapshot } from '../fake-snapshot.js';

const series = (text) => Object.fromEntries([...text.matchAll(/^nodesup_reloads_total\{result="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));

test('reloads are counted by result, each series there before the first reload', async (t) => {
  const events = new EventEmitter();
  const metrics = createMetrics({ getSnapshot: () => snapshot({ slots: [] }), events, name: 'api' });
  t.teardown(() => metrics.close());
  t.deepEqual(series(await metrics.registry.metrics()), { ok: 0, partial: 0, failed: 0 });
  const reload = (result) => events.emit('event', { event: EVENTS.RELOAD, result, workers: 2 }, { level: 'info' });
  reload('failed');
  reload('ok');
  reload('failed');
  reload('nonsense');
  events.emit('event', { event: EVENTS.WORKER_READY, slot: 0, pid: 1, result: 'ok' }, { level: 'info' });
  t.deepEqual(series(await metrics.registry.metrics()), { ok: 1, partial: 0, failed: 2 });
  t.regex(await metrics.registry.metrics(), /# TYPE nodesup_reloads_total counter/);
});
