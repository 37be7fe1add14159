// The control socket under abuse: garbage, a 10 MB line, a client that never reads its replies,
// 200 clients at once. Afterwards the primary still answers, still samples its workers, the app
// still serves, and the primary's memory did not balloon.
import test from 'ava';
import net from 'node:net';
import path from 'node:path';
import { once } from 'node:events';
import { freePort, waitGone, get, app } from '../helpers/cli.js';
import { request } from '../../src/control/client.js';
import { CONTROL_VERSION, MIN_CONTROL_VERSION } from '../../src/control/protocol.js';
import { allPids, exited, within, prng, rssOf, signal, start } from './_helpers.js';

// A raw control client: `lines` collects every reply line, `closed` resolves when the server hangs up.
async function rawControl(t, socketPath, { read = true } = {}) {
  const sock = net.connect(socketPath);
  t.teardown(() => sock.destroy());
  sock.on('error', () => {}); // being reset is an acceptable answer to abuse
  await once(sock, 'connect');
  const c = { sock, lines: [], closed: new Promise((resolve) => sock.once('close', resolve)) };
  if (read) {
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('data', (text) => {
      buf += text;
      let nl;
      while ((nl = buf.indexOf('\n')) !== -1) {
        c.lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    });
  } else sock.pause();
  return c;
}

function garbageLines(rnd) {
  const fixed = [
    'not json', '{', '}', '[]', 'null', '"status"', '1e999', '{"v":1}', '{"v":2,"id":1,"op":"status"}',
    '{"v":1,"op":"status"}', '{"v":1,"id":{},"op":"status"}', '{"v":1,"id":1e999,"op":"status"}',
    '{"v":1,"id":1,"op":"__proto__"}', '{"v":1,"id":1,"op":"constructor"}', '{"v":1,"id":1,"op":"status","args":[]}',
    '{"v":1,"id":1,"op":"status","args":null}', '{"v":1,"id":1,"op":"recycle","args":{"slot":99}}',
    '{"v":1,"id":1,"op":"recycle","args":{"slot":-1}}', '{"v":1,"id":1,"op":"recycle","args":{"slot":"0; rm -rf /"}}',
    '{"v":1,"id":1,"op":"inspect","args":{"slot":1.5}}', '{"v":1,"id":1,"op":"inspect","args":{"slot":7}}',
    `{"v":1,"id":"${'x'.repeat(300)}","op":"ping"}`, '{"__proto__":{"v":1},"id":1,"op":"status"}',
    '['.repeat(100_000) + ']'.repeat(100_000), '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000),
    '\u0000\u0001\u0002', '\uFFFD\uD800', '{"v":1,"id":1,"op":"ping"}\r',
  ];
  const random = Array.from({ length: 60 }, () => {
    const bytes = Buffer.alloc(1 + rnd.int(400));
    for (let i = 0; i < bytes.length; i++) bytes[i] = rnd.int(256);
    return bytes.toString('latin1').replace(/\n/g, ' ');
  });
  return [...fixed, ...random];
}

test('garbage, a 10 MB line, a client that never reads and 200 clients at once: the primary keeps serving and sampling', async (t) => {
  const port = await freePort();
  const run = start(t, [app('http.js'), '-w', '2', '--poll-interval', '300ms', '--metrics', 'false', '--name', 'abuse'], { env: { PORT: String(port) } });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 0, { what: 'slot 0 ready' });
  await run.waitFor((e) => e.event === 'worker.ready' && e.slot === 1, { what: 'slot 1 ready' });
  const sockPath = path.join(run.runDir, 'abuse.sock');
  const primary = run.child.pid;
  // Warm up what a normal life allocates (snapshots, a few sample windows) before the baseline.
  for (let i = 0; i < 20; i++) await run.status();
  const rssBefore = rssOf(primary);
  t.truthy(rssBefore);

  // A client that hammers `status` and never reads a reply: it must not make the primary hold them.
  const deaf = await rawControl(t, sockPath, { read: false });
  const statusLine = `${JSON.stringify({ v: 1, id: 1, op: 'status' })}\n`;
  deaf.sock.write(statusLine.repeat(60_000));

  // Garbage from several clients at once, with the occasional line split across writes.
  const rnd = prng(0x5eed);
  const garbage = await Promise.all(Array.from({ length: 8 }, async (_, k) => {
    const c = await rawControl(t, sockPath);
    const lines = garbageLines(rnd);
    for (const line of lines) {
      const cut = rnd.int(line.length + 1);
      c.sock.write(line.slice(0, cut));
      c.sock.write(`${line.slice(cut)}\n`);
    }
    c.sock.end();
    await within(c.closed, 30_000, `garbage client ${k} answered and closed`);
    return c;
  }));
  for (const c of garbage) {
    t.true(c.lines.length > 0, 'garbage got replies');
    for (const line of c.lines) {
      const reply = JSON.parse(line);
      // Answered in the request's version where it named one the primary speaks, else in its own.
      t.true(reply.v >= MIN_CONTROL_VERSION && reply.v <= CONTROL_VERSION, `v ${reply.v}`);
      if (!reply.ok) t.regex(reply.error.code, /^NODESUP_ERR_/);
    }
  }

  // 10 MB without a newline: refused with a reply, then disconnected; a second one that never reads.
  const big = await rawControl(t, sockPath);
  big.sock.write(Buffer.alloc(10 * 1024 * 1024, 'a'));
  await within(big.closed, 30_000, 'the 10 MB client disconnected');
  t.regex(big.lines.join('\n'), /line longer than/);
  // One that never reads and never stops sending: cut off (its next write fails) after the reply.
  const bigDeaf = await rawControl(t, sockPath, { read: false });
  const spew = Buffer.alloc(1024 * 1024, 'b');
  let spewing = true;
  bigDeaf.closed.then(() => { spewing = false; });
  (async () => {
    while (spewing && !bigDeaf.sock.destroyed) {
      if (!bigDeaf.sock.write(spew)) await new Promise((resolve) => { bigDeaf.sock.once('drain', resolve); bigDeaf.sock.once('close', resolve); });
    }
  })();
  await within(bigDeaf.closed, 30_000, 'the non-reading client that keeps sending disconnected');

  // 200 clients at once, each with a real request.
  const many = await within(Promise.allSettled(Array.from({ length: 200 }, () => request({ dir: run.runDir, name: 'abuse', op: 'status', timeoutMs: 30_000 }))),
    60_000, '200 status requests');
  const failed = many.filter((r) => r.status === 'rejected');
  t.is(failed.length, 0, `${failed.length} of 200 failed: ${failed[0]?.reason?.message}`);
  t.true(many.every((r) => r.status !== 'fulfilled' || r.value.slots.length === 2));

  // Afterwards: still answering, still sampling, still serving; the deaf client is still no burden.
  const mark = Date.now();
  const snap = await run.waitForStatus((s) => s.slots.every((row) => row.last && row.last.t > mark), { what: 'fresh samples of every slot', timeout: 20_000 });
  t.is(snap.slots.filter((row) => row.state === 'ready').length, 2);
  t.regex((await get(`http://127.0.0.1:${port}/`)).body, /^ok \d+\n$/);
  const rssAfter = rssOf(primary);
  t.log(`primary RSS ${Math.round(rssBefore / 2 ** 20)} MB before, ${Math.round(rssAfter / 2 ** 20)} MB after`);
  t.true(rssAfter < rssBefore + 200 * 2 ** 20, `the primary grew by ${Math.round((rssAfter - rssBefore) / 2 ** 20)} MB`);
  t.is(run.count((e) => e.event === 'worker.recycle' || e.event === 'worker.exit'), 0, 'no worker was touched by the abuse');
  deaf.sock.destroy();

  signal(run, 'SIGTERM');
  t.is((await exited(run)).exitCode, 0);
  t.deepEqual(await waitGone(allPids(run)), [], 'nothing left running');
});
