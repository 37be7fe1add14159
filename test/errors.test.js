// The error registry stays honest: every code is thrown somewhere, documented in the README with
// its exit status, and no source file invents a code that is not registered.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES, NodesupError, EXIT } from '../src/errors.js';
import { ROOT } from './helpers/cli.js';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const sources = fs.readdirSync(path.join(ROOT, 'src'), { recursive: true })
  .filter((f) => f.endsWith('.js') && f !== 'errors.js')
  .map((f) => fs.readFileSync(path.join(ROOT, 'src', f), 'utf8'))
  .join('\n');

for (const code of Object.keys(ERROR_CODES)) {
  test(`${code} is used and documented with its exit status`, (t) => {
    t.true(sources.includes(`'${code}'`), 'thrown somewhere in src/');
    const row = readme.split('\n').find((l) => l.startsWith(`| \`${code}\``));
    t.truthy(row, 'a row in the README errors table');
    t.true(row.includes(`| ${new NodesupError(code, 'x').exitCode} |`), 'the README states its exit status');
  });
}

test('no unregistered NODESUP_ERR_ code in src/', (t) => {
  const used = new Set(sources.match(/NODESUP_ERR_[A-Z_]+/g));
  for (const code of used) t.true(code in ERROR_CODES, code);
});

test('an unknown code is a programming error; exit statuses are 1 or 2', (t) => {
  t.throws(() => new NodesupError('NODESUP_ERR_NOPE', 'x'), { instanceOf: TypeError });
  for (const code of Object.keys(ERROR_CODES)) t.true([EXIT.RUNTIME, EXIT.USAGE].includes(new NodesupError(code, 'x').exitCode));
});
