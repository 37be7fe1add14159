// The report names only what code declares: a secret planted as a Map key, a Map value, a
// dictionary key on the path to a leak and as string values never reaches the report.
import test from 'ava';
import path from 'node:path';
import { analyseSnapshot } from '../../src/retainers/analyse.js';
import { FIXTURES, tmpDir, writeSnapshot } from './snapshots.js';

const dir = tmpDir(test);
const SECRET = 'Zq7hunter2';

test.before(async (t) => {
  t.context.file = await writeSnapshot(path.join(FIXTURES, 'privacy.mjs'), path.join(dir, 'privacy.heapsnapshot'), { env: { SECRET } });
});

test('the secret is in the snapshot, and nowhere in the report, with or without hints', async (t) => {
  const { readSnapshot } = await import('../../src/retainers/read-snapshot.js');
  const snap = await readSnapshot(t.context.file);
  t.true(snap.strings.some((s) => s.includes(SECRET)), 'the fixture did plant it (else this test proves nothing)');
  for (const hints of [{}, { growthBytes: 20_000, cwd: FIXTURES }, { sites: [{ fn: 'x', file: 'privacy.mjs', line: 9 }] }]) {
    const json = JSON.stringify(await analyseSnapshot(t.context.file, hints));
    t.false(json.includes(SECRET), json);
    t.false(json.includes('example.com'), json);
  }
});

test('the holders are still named: the Map, the array, and the dictionary with its key collapsed', async (t) => {
  const report = await analyseSnapshot(t.context.file, { cwd: FIXTURES });
  const paths = report.held.map((h) => h.path.join(' / '));
  t.true(paths.includes('(module) privacy.mjs / byToken / Map'), paths.join('\n'));
  t.true(paths.includes('(module) privacy.mjs / payloads / Array'), paths.join('\n'));
  // Both per-user arrays (one keyed by an email, one by an identifier-like key) read the same.
  const perUser = report.held.find((h) => h.path[1] === 'perUser');
  t.deepEqual(perUser?.path, ['(module) privacy.mjs', 'perUser', '[key]', 'Array'], paths.join('\n'));
  t.is(perUser.count, 200);
  t.is(perUser.holder.name, 'perUser[key]');
});
