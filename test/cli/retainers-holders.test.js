// What holds a leak, end to end, where the app's own array is not the answer: a real npm package
// that keeps what the app gives it (prom-client, a Histogram labelled by each request's path: a
// series per request, kept forever), and listeners added per request to a long-lived emitter
// exported by a second module of the app. The worker is replaced for its heap limit; the snapshot
// of the drained worker names both holders with the app's words: the Histogram's variable and
// prom-client@version, the emitter's variable, event and the module that declares it.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { startCli, freePort, scratch, writeConfig } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROM = createRequire(path.join(ROOT, 'package.json')).resolve('prom-client');
const PROM_VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/prom-client/package.json'), 'utf8')).version;
const DURATION_AT = 5; // the line of `const duration` in app.mjs below
const BUS_AT = 3; // the line of `export const bus` in bus.mjs below

function writeApp(t) {
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'bus.mjs'), `import { EventEmitter } from 'node:events';

export const bus = new EventEmitter();
bus.setMaxListeners(0);
`);
  fs.writeFileSync(path.join(dir, 'app.mjs'), `import http from 'node:http';
import client from ${JSON.stringify(pathToFileURL(PROM).href)};
import { bus } from './bus.mjs';

const duration = new client.Histogram({ name: 'http_request_duration_seconds', help: 'request time', labelNames: ['route'], registers: [] });

let n = 0;
http.createServer((req, res) => {
  const t0 = performance.now();
  // The bugs: the raw path as a label (one series per request), and a listener never removed.
  const context = new Array(256).fill(n);
  bus.on('config', () => context.length);
  res.end('ok ' + n);
  duration.observe({ route: '/users/' + n++ }, (performance.now() - t0) / 1000);
}).listen(Number(process.env.PORT), '127.0.0.1');
`);
  return dir;
}

test('a leak held by an npm package and one by a second module\'s emitter: both holders named in the app\'s words', async (t) => {
  t.timeout(4 * 60_000);
  const dir = writeApp(t);
  const cfg = writeConfig(t, { workers: 1, metrics: false, pollInterval: '500ms', limits: { heapUsed: '48mb' }, leak: false, gcBeforeRecycle: false, diagnose: { dir: path.join(dir, 'evidence') } });
  const port = await freePort();
  const run = startCli(t, [path.join(dir, 'app.mjs'), '-c', cfg], { env: { PORT: String(port) }, cwd: dir });
  await run.waitFor((e) => e.event === 'worker.ready');
  const found = run.waitFor((e) => e.event === 'worker.retainers' && e.taken, { timeout: 200_000, what: 'the retainers of the replaced worker' });
  const load = autocannon({ url: `http://127.0.0.1:${port}/`, connections: 8, duration: 200 });
  found.finally(() => load.stop());
  const ev = await found;
  t.log(ev.msg);
  const byName = (re) => ev.held.find((h) => re.test(h.holder?.name ?? ''));
  const listeners = byName(/^bus\._events\.config$/);
  t.truthy(listeners, `the emitter's listeners among ${JSON.stringify(ev.held.map((h) => h.holder))}`);
  t.like(listeners.holder, { file: 'bus.mjs', line: BUS_AT });
  const series = byName(/^duration\.hashMap$/);
  t.truthy(series, `the Histogram's series among ${JSON.stringify(ev.held.map((h) => h.holder))}`);
  t.like(series.holder, { file: 'app.mjs', line: DURATION_AT });
  t.true(ev.held.some((h) => JSON.stringify(h).includes(`prom-client@${PROM_VERSION}`)), 'prom-client and its version are named');
  t.false(JSON.stringify(ev).includes('/users/1'), 'no label value (the data) is logged');
});
