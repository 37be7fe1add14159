// The working directory as the user named it: $PWD through a symlink, when it names the directory
// the process stands in, and the physical path otherwise.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pickLogicalCwd } from '../../src/config/logical-cwd.js';

function releases(t) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nodesup-cwd-')));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const r of ['v1', 'v2']) fs.mkdirSync(path.join(root, 'releases', r), { recursive: true });
  fs.symlinkSync(path.join(root, 'releases', 'v1'), path.join(root, 'current'));
  return { root, v1: path.join(root, 'releases', 'v1'), v2: path.join(root, 'releases', 'v2'), current: path.join(root, 'current') };
}

test('$PWD through a symlink to the directory we stand in is the logical cwd', (t) => {
  const r = releases(t);
  t.is(pickLogicalCwd(r.v1, r.current), r.current);
  t.is(pickLogicalCwd(r.v1, `${r.current}/`), r.current, 'a trailing slash is the same directory');
});

test('$PWD naming another directory, a relative one, or one with dot parts is not trusted', (t) => {
  const r = releases(t);
  t.is(pickLogicalCwd(r.v2, r.current), r.v2, 'current points at v1, we stand in v2');
  t.is(pickLogicalCwd(r.v1, 'current'), r.v1);
  t.is(pickLogicalCwd(r.v1, `${r.root}/releases/../current`), r.v1);
  t.is(pickLogicalCwd(r.v1, path.join(r.root, 'gone')), r.v1);
  t.is(pickLogicalCwd(r.v1, undefined), r.v1);
});
