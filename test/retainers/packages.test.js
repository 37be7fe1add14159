// Holders inside npm packages as the corpus benchmark met them (bench/RESULTS.md, detection-node24):
// express-session's MemoryStore, in a module whose Script name is a sliced string, and memoizee's
// Object.create(null) cache, whose keys V8's string table also points at.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { analyseSnapshot } from '../../src/retainers/analyse.js';
import { readSnapshot } from '../../src/retainers/read-snapshot.js';
import { Graph, NONE } from '../../src/retainers/graph.js';
import { FIXTURES, tmpDir, writeSnapshot, lineOf } from './snapshots.js';

const dir = tmpDir(test);
const PLACEHOLDER = /\((?:sliced|concatenated) string\)/;

/** An app directory with a fixture package copied under node_modules (the repository ignores it). */
function appWith(pkg, appFile) {
  const app = path.join(dir, pkg);
  fs.mkdirSync(path.join(app, 'node_modules'), { recursive: true });
  fs.cpSync(path.join(FIXTURES, pkg), path.join(app, 'node_modules', pkg), { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, appFile), path.join(app, 'app.cjs'));
  return app;
}

test.before(async (t) => {
  const session = appWith('fakesession', 'session-app.cjs');
  const memo = appWith('fakememo', 'memo-app.cjs');
  const [sessionFile, memoFile] = await Promise.all([
    writeSnapshot(path.join(session, 'app.cjs'), path.join(dir, 'session.heapsnapshot')),
    writeSnapshot(path.join(memo, 'app.cjs'), path.join(dir, 'memo.heapsnapshot')),
  ]);
  t.context = { session, memo, sessionFile, memoFile };
});

const say = (h) => `${h.holder.name} (${h.path.join(' → ')}) ${h.count} ${h.type} ${h.bytes} B ${JSON.stringify(h.holder)}`;

/** The node type of the `name` of the Script whose own name ends with `suffix`. */
async function scriptNameType(file, suffix) {
  const g = new Graph(await readSnapshot(file), file);
  for (let n = 0; n < g.N; n++) {
    if (g.typeName(n) !== 'code' || !g.name(n).endsWith(suffix) || g.child(n, 'source') === NONE) continue;
    const name = g.child(n, 'name');
    if (name !== NONE) return `${g.typeName(name)} ${g.name(name)}`;
  }
  return '';
}

test('a package module compiled under a sliced name: the real file and package, never "(sliced string)"', async (t) => {
  const { session, sessionFile } = t.context;
  t.is(await scriptNameType(sessionFile, '/fakesession/index.js'), 'sliced string (sliced string)', 'the fixture reproduces the sliced name (else this test proves nothing)');
  const report = await analyseSnapshot(sessionFile, { growthBytes: 300 * 900, cwd: session });
  const [first] = report.held;
  t.deepEqual(first.path, ['(closure) node_modules/fakesession/index.js', 'store', 'sessions', 'Object'], say(first));
  t.is(first.type, 'string');
  t.deepEqual(first.holder, { name: 'store.sessions', file: 'node_modules/fakesession/index.js', line: lineOf(path.join(FIXTURES, 'fakesession/index.js'), 'const store'), package: 'fakesession@2.0.1' });
  t.false(PLACEHOLDER.test(JSON.stringify(report)), JSON.stringify(report));
});

test('a closure-held Object.create(null) cache keyed by data: found, named by its variable, in its package', async (t) => {
  const { memo, memoFile } = t.context;
  const report = await analyseSnapshot(memoFile, { growthBytes: 2000 * 180, cwd: memo });
  const [first] = report.held;
  t.deepEqual(first.path, ['(closure) node_modules/fakememo/lib/configure.js', 'cache', 'Object'], report.held.map(say).join('\n'));
  t.is(first.type, 'string');
  t.true(first.count >= 2000, say(first));
  t.true(first.share > 0.8, say(first));
  t.deepEqual(first.holder, { name: 'cache', file: 'node_modules/fakememo/lib/configure.js', line: lineOf(path.join(FIXTURES, 'fakememo/lib/configure.js'), 'const cache'), package: 'fakememo@0.4.2' });
  // The keys are the requests' URLs: data, never in the report.
  t.false(/orders|fbclid|user-\d/.test(JSON.stringify(report)), JSON.stringify(report));
});
