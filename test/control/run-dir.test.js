import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { testAsRoot } from '../helpers/tools.js';
import { checkRunDir, ensureRunDir, listSupervisors, runDir, socketPath } from '../../src/control/run-dir.js';
import { tmpRunDir } from './_helpers.js';

const isRoot = process.getuid?.() === 0;

test('runDir: NODESUP_RUN_DIR wins, then XDG_RUNTIME_DIR, then tmpdir/nodesup-<uid>', (t) => {
  t.is(runDir({ NODESUP_RUN_DIR: '/a/b', XDG_RUNTIME_DIR: '/run/user/1' }), '/a/b');
  t.is(runDir({ XDG_RUNTIME_DIR: '/run/user/1' }), '/run/user/1/nodesup');
  t.is(runDir({}), path.join(os.tmpdir(), `nodesup-${process.getuid()}`));
  t.is(runDir({ NODESUP_RUN_DIR: 'rel' }), path.resolve('rel'), 'relative paths are made absolute');
  t.is(runDir({ NODESUP_RUN_DIR: '', XDG_RUNTIME_DIR: '/x' }), '/x/nodesup', 'an empty variable counts as unset');
});

test('ensureRunDir creates a missing dir (and its parents) with mode 0700', async (t) => {
  const base = await tmpRunDir(t);
  const dir = path.join(base, 'deep', 'er', 'nodesup');
  ensureRunDir(dir);
  t.is((await fs.stat(dir)).mode & 0o777, 0o700);
});

test('ensureRunDir tightens a group/other-accessible dir we own', async (t) => {
  const dir = await tmpRunDir(t);
  await fs.chmod(dir, 0o755);
  ensureRunDir(dir);
  t.is((await fs.stat(dir)).mode & 0o777, 0o700);
});

test('ensureRunDir refuses a dir owned by someone else', async (t) => {
  let dir = '/';
  if (isRoot) {
    dir = await tmpRunDir(t);
    await fs.chown(dir, 65534, 65534);
  }
  const mode = (await fs.stat(dir)).mode;
  const err = t.throws(() => ensureRunDir(dir), { code: 'NODESUP_ERR_CONTROL' });
  t.regex(err.message, /owned by uid \d+, not by us.*NODESUP_RUN_DIR/);
  t.notRegex(err.message, /\n/);
  t.is((await fs.stat(dir)).mode, mode, 'someone else\'s dir is left alone');
});

testAsRoot()('ensureRunDir refuses a symlink planted by someone else', async (t) => {
  const base = await tmpRunDir(t);
  const target = path.join(base, 'target');
  await fs.mkdir(target, { mode: 0o700 });
  const link = path.join(base, 'link');
  await fs.symlink(target, link);
  await fs.lchown(link, 65534, 65534);
  t.throws(() => ensureRunDir(link), { code: 'NODESUP_ERR_CONTROL', message: /symlink owned by another user/ });
});

test('ensureRunDir refuses a file where the dir should be', async (t) => {
  const base = await tmpRunDir(t);
  const file = path.join(base, 'file');
  await fs.writeFile(file, '');
  t.throws(() => ensureRunDir(file), { code: 'NODESUP_ERR_CONTROL', message: /is not a directory/ });
});

test('checkRunDir returns null for a missing dir', (t) => {
  t.is(checkRunDir('/nonexistent/nodesup-test'), null);
});

test('socketPath: <dir>/<name>.sock; too long is a one-line error naming NODESUP_RUN_DIR', (t) => {
  t.is(socketPath('/run/x', 'api'), '/run/x/api.sock');
  const err = t.throws(() => socketPath('/tmp/' + 'd'.repeat(110), 'api'), { code: 'NODESUP_ERR_CONTROL' });
  t.regex(err.message, /over the 10\d-byte limit.*set NODESUP_RUN_DIR to a shorter path/);
  t.notRegex(err.message, /\n/);
});

test('socketPath refuses names that would escape the dir or hide the socket', (t) => {
  for (const bad of ['', '../x', 'a/b', '.hidden', '-flag', 'a b', 'nul\0', undefined]) {
    t.throws(() => socketPath('/run/x', bad), { code: 'NODESUP_ERR_USAGE' }, JSON.stringify(bad));
  }
  t.is(socketPath('/run/x', 'api.v2-blue_1'), '/run/x/api.v2-blue_1.sock');
});

test('listSupervisors lists sockets only, sorted; [] for a missing dir', async (t) => {
  const dir = await tmpRunDir(t);
  t.deepEqual(listSupervisors(path.join(dir, 'missing')), []);
  await fs.writeFile(path.join(dir, 'file.sock'), ''); // not a socket
  await fs.writeFile(path.join(dir, 'notes.txt'), '');
  const servers = [];
  for (const name of ['worker', 'api']) {
    const s = net.createServer();
    await new Promise((resolve) => s.listen(socketPath(dir, name), resolve));
    servers.push(s);
  }
  t.teardown(() => servers.forEach((s) => s.close()));
  t.deepEqual(listSupervisors(dir), ['api', 'worker']);
});
