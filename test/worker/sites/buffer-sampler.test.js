// The Buffer sampler in this process: retained Buffers are named by the line that allocated them,
// at about their real size; Buffers that were collected leave the table, so churn is not named.
import test from 'ava';
import v8 from 'node:v8';
import vm from 'node:vm';
import { setTimeout as delay } from 'node:timers/promises';
import { bufferSampler } from '../../../src/worker/sites/buffer-sampler.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
const MiB = 1024 * 1024;

const kept = [];
function keep(n) { kept.push(Buffer.alloc(n)); }
function churn(n) { return Buffer.allocUnsafe(n).fill(1).length; }
function joined(parts) { kept.push(Buffer.concat(parts)); }

test.serial('retained bytes by site: the keeper at about its size, churn 4× bigger gone after a GC', async (t) => {
  const s = bufferSampler();
  s.start();
  t.teardown(() => s.stop());
  for (let i = 0; i < 256; i++) { keep(32 * 1024); for (let j = 0; j < 4; j++) churn(32 * 1024); } // 8 MiB kept, 32 MiB churned
  for (let i = 0; i < 64; i++) joined([Buffer.alloc(8192), Buffer.alloc(8192)]); // 1 MiB kept through concat
  gc();
  await delay(100); // FinalizationRegistry callbacks run in a task after the GC
  gc();
  await delay(100);
  const r = s.read();
  const site = (fn) => r.sites.find((x) => x.fn === fn);
  t.truthy(site('keep'), JSON.stringify(r.sites));
  t.is(site('keep').file, 'test/worker/sites/buffer-sampler.test.js');
  t.true(site('keep').bytes > 5 * MiB && site('keep').bytes < 12 * MiB, `keep estimated ${site('keep').bytes}`);
  const churned = site('churn')?.bytes ?? 0;
  t.true(churned < 0.5 * MiB, `churn still holds ${churned}`);
  // concat's inner allocUnsafe is the same allocation, not a second one; its parts were garbage.
  t.true((site('joined')?.bytes ?? 0) < 3 * MiB);
  t.false(r.sites.some((x) => x.file.includes('src/worker')), 'the sampler is never a site');
});

test.serial('stop puts Buffer\'s own statics back', (t) => {
  const before = Buffer.alloc;
  const s = bufferSampler();
  s.start();
  t.not(Buffer.alloc, before);
  s.stop();
  t.is(Buffer.alloc, before);
  t.is(s.read(), null);
});

test.serial('Buffer.from over an ArrayBuffer allocates nothing and is not sampled', (t) => {
  const s = bufferSampler({ interval: 1 });
  s.start();
  t.teardown(() => s.stop());
  const ab = new ArrayBuffer(MiB);
  const views = [Buffer.from(ab), Buffer.from(ab, 10, 100)];
  t.is(s.read().sites.length, 0, JSON.stringify(s.read().sites));
  t.is(views.length, 2);
});

test.serial('paused (between a point\'s GC and its read), Buffers in flight are not sampled; resumed, they are', (t) => {
  const s = bufferSampler({ interval: 1 });
  s.start();
  t.teardown(() => s.stop());
  s.pause();
  keep(64 * 1024);
  t.is(s.read().sites.length, 0, JSON.stringify(s.read().sites));
  s.resume();
  keep(64 * 1024);
  t.is(s.read().sites.find((x) => x.fn === 'keep')?.samples, 1, JSON.stringify(s.read().sites));
});

const openStreams = [];
function openDeflate(zlibMod) { const z = zlibMod.createDeflate(); openStreams.push(z); return z; }
function deflateAndEnd(zlibMod) { const z = zlibMod.createGzip(); z.resume(); z.end('x'); return z; }

test.serial('zlib streams left open are named by the line that opened them, as a resource; ended ones leave the table', async (t) => {
  const zlibMod = (await import('node:zlib')).default;
  const esm = await import('node:zlib'); // the ESM namespace: what `import { createInflate }` binds to
  const original = zlibMod.createDeflate;
  const s = bufferSampler();
  s.start();
  t.teardown(() => { s.stop(); for (const z of openStreams.splice(0)) z.close(); });
  for (let i = 0; i < 20; i++) openDeflate(zlibMod);
  const ended = Array.from({ length: 20 }, () => deflateAndEnd(zlibMod));
  await Promise.all(ended.map((z) => new Promise((r) => z.once('close', r))));
  openStreams.push(esm.createInflate());
  const r = s.read();
  const open = r.sites.find((x) => x.fn === 'openDeflate');
  t.like(open, { resource: 'zlib Deflate', file: 'test/worker/sites/buffer-sampler.test.js', samples: 20 }, JSON.stringify(r.sites));
  t.true(open.bytes > 20 * 256 * 1024, `${open.bytes}: zlib's formula, ~272 KiB a default deflate`);
  t.false(r.sites.some((x) => x.fn === 'deflateAndEnd'), 'a stream that closed is gone at once');
  t.truthy(r.sites.find((x) => x.resource === 'zlib Inflate'));
  s.stop();
  t.is(zlibMod.createDeflate, original, 'stop puts zlib\'s factories back');
  t.is(esm.createDeflate, original);
});
