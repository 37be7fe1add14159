// A leak that fills a worker in well under a minute, at the defaults but for the rss limit: its
// first recycle names the code that retains it (the README's own example was recycled again and
// again and never traced), the replacement profiles from birth, and workers that fill alike are
// named as the slot's leak. No site is ever nodesup's own.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, freePort, scratch, writeConfig } from '../helpers/cli.js';

function writeApp(t) {
  const dir = scratch();
  const file = path.join(dir, 'pages.mjs');
  // cachePage keeps ~5 MiB a second of rendered pages, never evicted; the server is otherwise healthy.
  fs.writeFileSync(file, `import http from 'node:http';
const port = Number(process.env.PORT);
const cache = [];
// A page cache without eviction: every render is kept.
function render(i) {
  return new Array(64 * 1024).fill(i + Math.random());
}
function cachePage(i) {
  cache.push(render(i));
}
let n = 0;
setInterval(() => cachePage(n++), 100).unref();
http.createServer((req, res) => res.end('ok\\n')).listen(port, '127.0.0.1');
`);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return file;
}

const ours = (site) => /nodesup\/src|^node:vm|\/src\/worker\//.test(site.file ?? '');

test('a fast leak\'s first recycle names its site; the next workers of the slot are named together', async (t) => {
  const app = writeApp(t);
  const cfg = writeConfig(t, { workers: 1, metrics: false, limits: { rss: '160mb' } });
  const run = startCli(t, [app, '-c', cfg], { env: { PORT: String(await freePort()) } });
  const first = await run.waitFor((e) => e.event === 'worker.recycle', { what: 'the first recycle', timeout: 90_000 });
  t.is(first.reason, 'rss');
  t.truthy(first.retained, 'a memory recycle carries what the worker retained');
  t.is(first.retained.kind, 'heap');
  t.true(first.retained.bytesPerMin > 60 * 1024 * 1024, `filled at ${first.retained.bytesPerMin} B/min`);
  const [site] = first.retained.sites ?? [];
  t.truthy(site, `the first recycle names a site: ${JSON.stringify(first.retained)}`);
  t.true(['cachePage', 'render'].includes(site.fn), `the retaining code, not the timer around it: ${site.fn}`);
  t.is(path.basename(site.file), 'pages.mjs');
  t.false(first.retained.sites.some(ours), 'no site is nodesup\'s own');
  t.regex(first.msg, /retained heap \+[\d.]+ MiB\/min, mostly from (cachePage|render) \(.*pages\.mjs:\d+\)/);
  // The replacement profiled from birth; two workers in a row at the same rate are the slot's leak.
  const slot = await run.waitFor((e) => e.event === 'leak.warning' && e.workersInRow >= 2, { what: 'the slot\'s leak', timeout: 90_000 });
  t.like(slot, { slot: 0, kind: 'heap' });
  t.true(['cachePage', 'render'].includes(slot.sites?.[0]?.fn), JSON.stringify(slot.sites));
  t.regex(slot.msg, /2 workers in a row filled at ~[\d.]+ MiB\/min \(heap\)/);
});
