// Which Node lines run a TypeScript entry, with which flags, and the one line nodesup says where
// they cannot. The version table is pinned to the real binary under test: CI runs this file on
// 20, 22, 24 and 26.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import module from 'node:module';
import { spawnSync } from 'node:child_process';
import { stripsByDefault, typeScriptMode, checkTypeScriptEntry, typeScriptConfigProblem, strippedLine } from '../../src/config/typescript.js';
import { scratch } from '../helpers/cli.js';

const version = process.versions.node;

function dirWith(t, files) {
  const dir = scratch();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

async function refusal(t, promise) {
  const err = await t.throwsAsync(promise);
  t.is(err.code, 'NODESUP_ERR_SCRIPT');
  t.false(err.message.includes('\n'), 'one line');
  return err.message;
}

test('stripping by default: from 22.18 on 22, from 23.6 on, never on 20', (t) => {
  const cases = { '20.19.0': false, '22.12.0': false, '22.17.1': false, '22.18.0': true, '22.23.3': true, '23.5.0': false, '23.6.0': true, '24.0.0': true, '26.10.0': true };
  for (const [v, strips] of Object.entries(cases)) t.is(stripsByDefault(v), strips, v);
});

test(`the table agrees with what Node ${version} reports with no flags`, (t) => {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const r = spawnSync(process.execPath, ['-p', 'process.features.typescript'], { encoding: 'utf8', env });
  t.is(r.status, 0, r.stderr);
  t.is(r.stdout.trim() === 'strip', stripsByDefault(version), `process.features.typescript: ${r.stdout.trim()}`);
});

test('flags: the command line after NODE_OPTIONS, a loader taken at its word, strip flags only where they exist', (t) => {
  const mode = (v, args) => typeScriptMode(v, args).mode;
  t.is(mode('24.0.0', []), 'strip');
  t.is(mode('22.17.0', []), false);
  t.is(mode('22.17.0', ['--experimental-strip-types']), 'strip');
  t.is(mode('22.17.0', ['--experimental_strip_types']), 'strip', 'V8-style underscores');
  t.is(mode('24.0.0', ['--experimental-transform-types']), 'transform');
  t.deepEqual(typeScriptMode('24.0.0', ['--no-experimental-strip-types']), { mode: false, offBy: '--no-experimental-strip-types' });
  t.is(mode('24.0.0', ['--no-experimental-strip-types', '--experimental-strip-types']), 'strip', 'the later flag wins');
  t.is(mode('20.19.0', ['--experimental-strip-types']), false, 'Node 20 has no such flag');
  for (const loader of [['--import', 'tsx'], ['--import=tsx'], ['--require', 'ts-node/register'], ['-r', 'ts-node/register'], ['--loader', 'ts-node/esm'], ['--experimental-loader=ts-node/esm']]) {
    t.is(mode('20.19.0', loader), 'loader', loader.join(' '));
  }
});

test('a .js entry is none of its business, on any line', async (t) => {
  await t.notThrowsAsync(checkTypeScriptEntry('/nowhere/server.js', { version: '20.19.0' }));
  await t.notThrowsAsync(checkTypeScriptEntry('/nowhere/server.mjs', { version: '22.12.0' }));
});

test('where Node cannot strip: one line naming the line and what to do', async (t) => {
  const on20 = await refusal(t, checkTypeScriptEntry('/srv/app/server.ts', { version: '20.19.0' }));
  t.is(on20, "script: server.ts is TypeScript, which Node 20.19.0 cannot run (Node strips types by default from 22.18 and 23.6): "
    + "run nodesup on Node 22.18+ or 24+, or give the workers a loader: nodeArgs: ['--import', 'tsx']");
  const on22 = await refusal(t, checkTypeScriptEntry('/srv/app/server.mts', { version: '22.17.0' }));
  t.regex(on22, /^script: server\.mts is TypeScript, which Node 22\.17\.0 strips only with --experimental-strip-types .*nodeArgs: \['--experimental-strip-types'\].*nodeArgs: \['--import', 'tsx'\]$/);
  const off = await refusal(t, checkTypeScriptEntry('/srv/app/server.ts', { version: '24.0.0', nodeOptions: '--no-experimental-strip-types' }));
  t.regex(off, /--no-experimental-strip-types in nodeArgs or NODE_OPTIONS turns Node's type stripping off: drop it/);
  const tsx = await refusal(t, checkTypeScriptEntry('/srv/app/server.tsx', { version: '24.0.0' }));
  t.regex(tsx, /^script: server\.tsx: Node does not run \.tsx files/);
});

test('a loader in nodeArgs or NODE_OPTIONS is taken at its word', async (t) => {
  await t.notThrowsAsync(checkTypeScriptEntry('/srv/app/server.ts', { version: '20.19.0', nodeArgs: ['--import', 'tsx'] }));
  await t.notThrowsAsync(checkTypeScriptEntry('/srv/app/server.tsx', { version: '20.19.0', nodeOptions: '--require ts-node/register' }));
});

const canProbe = typeof module.stripTypeScriptTypes === 'function';
const probing = canProbe ? test : (title, ...rest) => test.skip(`${title} [skipped: Node ${version} has no module.stripTypeScriptTypes (22.13+)]`, ...rest);

probing('what strip-only mode refuses, in the entry or a .ts module it imports, named with its line', async (t) => {
  const dir = dirWith(t, {
    'ok.ts': "import type { T } from './types.ts';\nimport { x } from './lib/a.ts';\nconst n: number = x;\nconsole.log(n);\n",
    'types.ts': 'export enum T { never, loaded }\n', // imported for its type only: Node never loads it
    'lib/a.ts': "export const x: number = 1;\n",
    'enum.ts': "const a = 1;\n\nexport enum Color { Red }\n",
    'deep.ts': "import {\n  y,\n} from './lib/b.mts';\nconsole.log(y);\n",
    'lib/b.mts': '// parameter properties\nexport class B {\n  constructor(private readonly y: number) {}\n}\nexport const y = 2;\n',
  });
  const at = { version: '24.0.0' };
  await t.notThrowsAsync(checkTypeScriptEntry(path.join(dir, 'ok.ts'), at));
  const own = await refusal(t, checkTypeScriptEntry(path.join(dir, 'enum.ts'), at));
  t.regex(own, /^script: enum\.ts:3: TypeScript enum is not supported in strip-only mode: Node 24\.0\.0 strips types but does not transform them; write it without enum, namespace or parameter properties, or give the workers a loader: nodeArgs: \['--import', 'tsx'\]$/);
  const imported = await refusal(t, checkTypeScriptEntry(path.join(dir, 'deep.ts'), at));
  t.regex(imported, /^script: lib\/b\.mts:3 \(imported by deep\.ts\): TypeScript parameter property is not supported/);
  await t.notThrowsAsync(checkTypeScriptEntry(path.join(dir, 'enum.ts'), { ...at, nodeArgs: ['--experimental-transform-types'] }), 'transforming Node takes enums');
});

test('a supervisor.config.ts the primary cannot load: one line with what to do', (t) => {
  const unknown = Object.assign(new TypeError('Unknown file extension ".ts" for /srv/app/supervisor.config.ts'), { code: 'ERR_UNKNOWN_FILE_EXTENSION' });
  t.is(typeScriptConfigProblem('/srv/app/supervisor.config.ts', unknown, '20.19.0'),
    'Node 20.19.0 cannot run TypeScript (Node strips types by default from 22.18 and 23.6): run nodesup on Node 22.18+ or 24+, or write it as supervisor.config.js');
  t.regex(typeScriptConfigProblem('/srv/app/supervisor.config.mts', unknown, '22.17.0'), /NODE_OPTIONS=--experimental-strip-types, or write it as supervisor\.config\.js$/);
  const enumErr = Object.assign(new SyntaxError('TypeScript enum is not supported in strip-only mode'), { code: 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX' });
  enumErr.stack = 'file:///srv/app/supervisor.config.ts?t=1:4\n\nenum A { x }\n^^^^\n\nSyntaxError: TypeScript enum is not supported in strip-only mode';
  t.regex(typeScriptConfigProblem('/srv/app/supervisor.config.ts', enumErr), /^TypeScript enum is not supported in strip-only mode \(line 4\): Node strips types but does not transform them/);
  t.is(typeScriptConfigProblem('/srv/app/supervisor.config.js', unknown), null, 'not a TypeScript file: the usual words');
  t.is(typeScriptConfigProblem('/srv/app/supervisor.config.ts', new Error('no env var API_KEY')), null, 'not about TypeScript: the usual words');
});

test('the refused line, as 22 and as 24 and 26 give it', (t) => {
  t.is(strippedLine({ message: '  x TypeScript enum is not supported in strip-only mode\n   ,-[3:1]\n 1 | const a = 1;' }), 3);
  t.is(strippedLine({ stack: ':7\n\nenum A {}\n', message: 'TypeScript enum is not supported in strip-only mode' }), 7);
  t.is(strippedLine({ message: 'x' }), null);
});
