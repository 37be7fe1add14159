// A heap leak inside a library, end to end: the site names the package with its version and the
// app's own line that reached it (via), in the event and in its text; no site is nodesup's own
// (its agent, its GC through node:vm, its samplers). The package is written at test time into the
// app's node_modules, as npm would lay it out.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { startCli, freePort, scratch, ROOT, writeConfig } from '../helpers/cli.js';

function writeApp(t) {
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const pkg = path.join(dir, 'node_modules/some-store');
  fs.mkdirSync(path.join(pkg, 'lib'), { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'some-store', version: '2.3.1', main: 'lib/memory.js' }));
  fs.writeFileSync(path.join(pkg, 'lib/memory.js'), `'use strict';
// A session store that never expires anything.
class MemoryStore {
  constructor() { this.sessions = new Map(); }
  set(id, data) {
    this.sessions.set(id, { data: JSON.parse(JSON.stringify(data)), at: Date.now() });
  }
}
module.exports = { MemoryStore };
`);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', type: 'commonjs' }));
  fs.writeFileSync(path.join(dir, 'server.js'), `'use strict';
const http = require('node:http');
const { MemoryStore } = require('some-store');
const store = new MemoryStore();
const perMs = (6 * 1024 * 1024) / 60_000;
let owed = 0;
let last = Date.now();
let id = 0;
function saveSession() {
  store.set(id++, { user: id, cart: new Array(100).fill(id + 0.5) });
}
setInterval(() => {
  owed += perMs * (Date.now() - last);
  last = Date.now();
  for (; owed >= 1024; owed -= 1024) saveSession();
}, 100);
http.createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');
`);
  return dir;
}

test('a leak inside node_modules names some-store@2.3.1 and server.js, never nodesup itself', async (t) => {
  const dir = writeApp(t);
  const cfg = writeConfig(t, { workers: 1, metrics: false, leak: { warmUp: '0s' } }) // no warm-up hold: this is about the sites;
  const run = startCli(t, [path.join(dir, 'server.js'), '-c', cfg], { cwd: dir, env: { PORT: String(await freePort()) } });
  const ev = await run.waitFor((e) => e.event === 'leak.warning' && e.kind === 'heap', { timeout: 240_000, what: 'the heap leak named' });
  t.log(ev.msg);
  t.like(ev.sites[0], { file: 'node_modules/some-store/lib/memory.js', package: 'some-store@2.3.1', via: { file: 'server.js', fn: 'saveSession', line: 9 } });
  t.regex(ev.msg, /some-store@2\.3\.1 \S+, reached from server\.js:9/);
  for (const s of ev.sites) {
    t.false(s.file.startsWith(path.join(ROOT, 'src')) || s.file.startsWith('node:'), `nodesup's or node's own: ${JSON.stringify(s)}`);
  }
});
