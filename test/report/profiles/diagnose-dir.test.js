// diagnose.dir: where it is by default, private files, bounded in count and bytes with the oldest
// out first, and nothing written on a disk that is nearly full.
import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { diagnoseDir, diagnoseDirOf, defaultDiagnoseDir, profileFileName, BOUNDS } from '../../../src/report/profiles/diagnose-dir.js';
import { runDir } from '../../../src/control/run-dir.js';
import { NodesupError } from '../../../src/errors.js';

function scratch(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodesup-diag-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const plenty = () => ({ bavail: 1e9, bsize: 4096 });

test('the default: under the OS temp dir, named for the supervisor, apart from the control run dir', (t) => {
  const dir = defaultDiagnoseDir('api');
  t.is(path.basename(dir), 'api');
  t.true(dir.startsWith(`${os.tmpdir()}/`), dir);
  t.not(path.dirname(dir), runDir({ XDG_RUNTIME_DIR: '' }));
  t.not(dir, runDir({ XDG_RUNTIME_DIR: '/run/user/1000' }));
  t.is(diagnoseDirOf({ name: 'api', diagnose: { dir: null }, configFile: null }), dir);
  t.is(diagnoseDirOf({ name: 'api', diagnose: { dir: 'diag' }, configFile: '/etc/app/supervisor.config.js' }), '/etc/app/diag', 'relative to the config file');
  t.is(diagnoseDirOf({ name: 'api', diagnose: { dir: '/var/lib/x' }, configFile: '/etc/app/c.js' }), '/var/lib/x');
});

test('file names sort by time and say slot, kind and reason', (t) => {
  const a = profileFileName({ name: 'api', at: Date.UTC(2025, 0, 2, 3, 4, 5, 6), slot: 1, kind: 'heap', reason: 'leak' });
  t.is(a, 'nodesup-api-20250102T030405.006Z-slot1-heap-leak.pb.gz');
  t.true(profileFileName({ name: 'api', at: Date.UTC(2025, 0, 2, 3, 4, 6), slot: 0, kind: 'heap', reason: 'rss' }) > a);
});

test('files are written 0600 into a directory made 0700, a private parent for the default', (t) => {
  const root = scratch(t);
  const dir = path.join(root, 'parent', 'api');
  const d = diagnoseDir(dir, { privateParent: true, statfs: plenty });
  const file = d.write('nodesup-api-1.pb.gz', Buffer.from('x'));
  t.is(file, path.join(dir, 'nodesup-api-1.pb.gz'));
  t.is(fs.statSync(file).mode & 0o777, 0o600);
  t.is(fs.statSync(dir).mode & 0o777, 0o700);
  t.is(fs.statSync(path.dirname(dir)).mode & 0o777, 0o700);
  // The same name twice (two profiles in one millisecond) keeps both.
  t.is(d.write('nodesup-api-1.pb.gz', Buffer.from('y')), path.join(dir, 'nodesup-api-1-2.pb.gz'));
});

test('bounded: past maxFiles or maxBytes the oldest of nodesup\'s files go first; the team\'s files stay', (t) => {
  const dir = scratch(t);
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'the team\'s');
  const d = diagnoseDir(dir, { bounds: { ...BOUNDS, maxFiles: 3, maxBytes: 1000 }, statfs: plenty });
  const names = [];
  for (let i = 0; i < 5; i++) {
    const name = `nodesup-api-${i}.pb.gz`;
    d.write(name, Buffer.alloc(100));
    fs.utimesSync(path.join(dir, name), 1000 + i, 1000 + i); // one second apart, as leaks would be
    names.push(name);
  }
  t.deepEqual(d.list().map((f) => path.basename(f.file)), names.slice(2));
  t.true(fs.existsSync(path.join(dir, 'notes.txt')));
  d.write('nodesup-api-big.pb.gz', Buffer.alloc(900));
  t.deepEqual(d.list().map((f) => path.basename(f.file)), ['nodesup-api-4.pb.gz', 'nodesup-api-big.pb.gz'], 'by bytes: 900 and the newest 100 make 1000');
  d.write('nodesup-api-huge.pb.gz', Buffer.alloc(2000));
  t.deepEqual(d.list().map((f) => path.basename(f.file)), ['nodesup-api-huge.pb.gz'], 'the newest is kept even alone over the bound');
});

test('a disk short of room: nothing written, a coded error that says what to do', (t) => {
  const dir = scratch(t);
  const d = diagnoseDir(dir, { statfs: () => ({ bavail: 10, bsize: 4096 }) });
  const err = t.throws(() => d.write('nodesup-api-1.pb.gz', Buffer.from('x')), { instanceOf: NodesupError });
  t.is(err.code, 'NODESUP_ERR_NO_ROOM');
  t.regex(err.message, /0 MiB free, under the 64 MiB nodesup leaves; nothing was written there \(free some space, or set diagnose.dir to another disk\)/);
  t.deepEqual(fs.readdirSync(dir), []);
});

test('a path that is not a directory: a coded error naming the key', (t) => {
  const root = scratch(t);
  const file = path.join(root, 'f');
  fs.writeFileSync(file, '');
  const err = t.throws(() => diagnoseDir(file, { statfs: plenty }).write('nodesup-a.pb.gz', Buffer.from('x')), { instanceOf: NodesupError });
  t.is(err.code, 'NODESUP_ERR_CONFIG');
  t.regex(err.message, /^diagnose\.dir .*: (cannot create it: EEXIST|it is not a directory); set diagnose\.dir to a directory nodesup may write$/);
});
