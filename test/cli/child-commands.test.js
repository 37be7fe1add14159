// A growing child tree, end to end: the children leak is named with the children's command,
// read from /proc/<pid>/cmdline by the agent.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, freePort, scratch, writeConfig } from '../helpers/cli.js';

test('a children leak names what the children run', async (t) => {
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'app.mjs');
  // Two `sleep` processes a second, never reaped until the worker goes (its tree is killed then).
  fs.writeFileSync(file, `import http from 'node:http';
import { spawn } from 'node:child_process';
setInterval(() => spawn('sleep', ['120'], { stdio: 'ignore' }).on('error', () => {}), 500);
http.createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');
`);
  const cfg = writeConfig(t, { workers: 1, pollInterval: '250ms', metrics: false, leak: { window: '10s', minGrowth: '1mb/min' } });
  const run = startCli(t, [file, '-c', cfg], { env: { PORT: String(await freePort()) } });
  const ev = await run.waitFor((e) => e.event === 'worker.recycle' && e.kind === 'children', { timeout: 120_000, what: 'the children leak recycle' });
  t.like(ev, { reason: 'leak', kind: 'children' });
  t.like(ev.commands?.[0], { command: 'sleep 120' });
  t.true(ev.commands[0].count >= 10 && ev.commands[0].perMin >= 60, JSON.stringify(ev.commands));
});
