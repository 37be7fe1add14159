// App output under backpressure: workers that write to stdout as fast as they can, and a reader of
// nodesup's stdout that stalls. The primary stays bounded, requests keep being answered, every line
// arrives whole, and in pretty mode each app line carries its slot.
import test from 'ava';
import fs from 'node:fs';
import { execa } from 'execa';
import { setTimeout as delay } from 'node:timers/promises';
import { BIN, app, freePort, scratch, get, waitGone } from '../helpers/cli.js';

const MiB = 1024 * 1024;
const LINE = /^(\[\d\] )?flood (\d) (\d+) x+ end$/;

function rssOf(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  } catch {
    return null;
  }
}

function startFlood(t, format) {
  const cwd = scratch();
  return freePort().then((port) => {
    const child = execa(process.execPath, [BIN, 'start', app('flood.js'), '-w', '2', '--metrics', 'false', '--log-format', format, '--name', `flood-${format}`], {
      cwd, env: { PORT: String(port), NODESUP_RUN_DIR: cwd }, reject: false, buffer: false, stdout: 'pipe', stderr: 'pipe', forceKillAfterDelay: 60_000,
    });
    const seen = { lines: 0, bad: [], app: 0, events: [], pids: new Set(), perSlot: { 0: -1, 1: -1 }, outOfOrder: 0 };
    let partial = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop();
      for (const line of parts) {
        seen.lines++;
        if (line.startsWith('{')) {
          const ev = JSON.parse(line);
          seen.events.push(ev);
          if (ev.event === 'worker.spawn') seen.pids.add(ev.pid);
          continue;
        }
        // Pretty events span several lines; an app line is anything that looks like one, even in part.
        if (format === 'pretty' && !/flood \d \d+ x|x end$/.test(line)) continue;
        const m = LINE.exec(line);
        if (!m) { if (seen.bad.length < 5) seen.bad.push(line.slice(0, 200)); continue; }
        if (format === 'pretty' && m[1] !== `[${m[2]}] `) seen.bad.push(`wrong slot prefix: ${line.slice(0, 60)}`);
        seen.app++;
      }
    });
    t.teardown(() => { child.kill('SIGKILL'); for (const pid of seen.pids) try { process.kill(pid, 'SIGKILL'); } catch {} });
    return { child, seen, port };
  });
}

async function until(pred, what, ms = 60_000) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(50);
  }
}

test('a stdout flood from every worker, then a reader that stalls for 5 s: primary ≤ 200 MiB, every request answered, no line cut or interleaved', async (t) => {
  const { child, seen, port } = await startFlood(t, 'json');
  await until(() => seen.events.filter((e) => e.event === 'worker.ready').length >= 2, 'two ready workers');
  await until(() => seen.app > 2000, 'the flood to flow');

  let peak = 0;
  const sampler = setInterval(() => { peak = Math.max(peak, rssOf(child.pid) ?? 0); }, 100);
  t.teardown(() => clearInterval(sampler));
  let answered = 0;
  const ask = async (n) => { for (let i = 0; i < n; i++) if ((await get(`http://127.0.0.1:${port}/`)).status === 200) answered++; };

  await ask(50); // while the reader keeps up
  child.stdout.pause(); // the reader stalls: the pipe fills, then the primary's buffer
  await Promise.all([ask(100), delay(5000)]);
  child.stdout.resume();
  await until(() => seen.events.some((e) => e.event === 'output.dropped'), 'the drop report', 30_000);
  await ask(50);
  clearInterval(sampler);

  t.log(`app lines ${seen.app}, primary RSS peak ${(peak / MiB).toFixed(1)} MiB, dropped ${JSON.stringify(seen.events.find((e) => e.event === 'output.dropped'))}`);
  t.is(answered, 200, 'every request answered, stall or not');
  t.true(peak > 0 && peak <= 200 * MiB, `primary RSS peak ${(peak / MiB).toFixed(1)} MiB`);
  t.deepEqual(seen.bad, [], 'every line whole: no line cut or interleaved with another');
  const drop = seen.events.find((e) => e.event === 'output.dropped');
  t.true(drop.lines > 0 && drop.stream === 'stdout');

  const t0 = Date.now();
  child.kill('SIGTERM');
  const done = await child;
  t.log(`stop took ${Date.now() - t0} ms; ${JSON.stringify(seen.events.filter((e) => e.event === 'worker.exit').map((e) => [e.forced, e.drainMs]))}`);
  t.log(`exit ${done.exitCode} ${done.signal} ${done.timedOut} ${String(done.message).slice(0, 300)}`);
  t.is(done.exitCode, 0);
  t.deepEqual(await waitGone(seen.pids), []);
});

test('pretty mode: each app line is prefixed with its slot', async (t) => {
  const { child, seen } = await startFlood(t, 'pretty');
  await until(() => seen.app > 500, 'app lines');
  t.deepEqual(seen.bad, []);
  child.kill('SIGTERM');
  await child;
});
