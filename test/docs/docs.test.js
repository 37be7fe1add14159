// The repository explains itself: docs/ stays true to the tree, the config schema and the event
// names, and nothing cites a document the repository does not hold. Files only, read at run time:
// a file added to src/ without its row in docs/concerns.md fails here.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as validate from '../../src/config/validate.js';
import { EVENTS } from '../../src/constants.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (rel) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const SELF = path.relative(ROOT, fileURLToPath(import.meta.url));

/** Files under `dir` (relative to the repository root), recursively, node_modules left out. */
function filesUnder(dir) {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [dir];
  return fs.readdirSync(abs, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(ROOT, path.join(e.parentPath ?? e.path, e.name)).split(path.sep).join('/'))
    .filter((f) => !f.split('/').includes('node_modules'))
    .sort();
}

const sourceFiles = () => filesUnder('src').filter((f) => f.endsWith('.js'));

// A backticked token names a repository path when it starts at one of the repository's own
// top-level folders: `src/core/policy/decide.js`, `docs/`, `bin/nodesup.js`.
const PATH_TOKEN = /^(?:bin|src|test|bench|docs|examples)(?:\/[\w.@-]+)*\/?$/;
const backticked = (text) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);

test('every path named in backticks in docs/concerns.md exists', (t) => {
  const paths = [...new Set(backticked(read('docs/concerns.md')).filter((x) => PATH_TOKEN.test(x)))];
  t.true(paths.length >= sourceFiles().length, `only ${paths.length} paths found in docs/concerns.md`);
  const missing = paths.filter((p) => !fs.existsSync(path.join(ROOT, p)));
  t.deepEqual(missing, [], `docs/concerns.md names paths that do not exist: ${missing.join(', ')}`);
});

test('every src/**/*.js file has its row in docs/concerns.md', (t) => {
  const doc = read('docs/concerns.md');
  const files = sourceFiles();
  t.true(files.length > 0, 'no source files found');
  const rowless = files.filter((f) => !doc.includes(`| \`${f}\` |`));
  t.deepEqual(rowless, [], `files without a row ("| \`path\` | what it is for |") in docs/concerns.md: ${rowless.join(', ')}`);
});

// The schema's keys, dotted down to the leaves (`recycle.killTimeout`). Walked from the zod schema
// when validate.js exports one; otherwise read through validateConfig, whose unknown-key error
// lists the keys of the schema's section it was raised in ("expected one of rss, heapUsed, …").
function zodFields(schema) {
  const def = schema?._zod?.def;
  if (!def) return null;
  switch (def.type) {
    case 'object': return def.shape;
    case 'default': case 'prefault': case 'nullable': case 'optional': case 'readonly': case 'catch': case 'nonoptional':
      return zodFields(def.innerType);
    case 'pipe': return zodFields(def.in) ?? zodFields(def.out);
    case 'union': {
      let out = null;
      for (const option of def.options) {
        const f = zodFields(option);
        if (f) out = { ...out, ...f };
      }
      return out;
    }
    default: return null;
  }
}

function walkZod(schema, prefix = []) {
  const fields = zodFields(schema);
  if (!fields) return [prefix.join('.')];
  return Object.entries(fields).flatMap(([k, v]) => walkZod(v, [...prefix, k]));
}

const BOGUS = 'zzzzzzzzzzzzzzzzzzzz';

function sectionKeys(prefix) {
  let raw = { [BOGUS]: 1 };
  for (const k of [...prefix].reverse()) raw = { [k]: raw };
  try {
    validate.validateConfig(raw, 'probe');
  } catch (err) {
    const m = /: unknown key \(expected one of (.+)\)$/.exec(err.message);
    if (m) return m[1].split(', ');
  }
  return null;
}

function walkErrors(prefix = []) {
  const keys = sectionKeys(prefix);
  if (!keys) return [prefix.join('.')];
  return keys.flatMap((k) => walkErrors([...prefix, k]));
}

function configKeys() {
  const exported = Object.values(validate).find((v) => zodFields(v) && Object.hasOwn(zodFields(v), 'limits'));
  return exported ? walkZod(exported) : walkErrors();
}

test('every config key of the schema is documented in docs/configuration.md', (t) => {
  const keys = configKeys();
  // The walk itself must reach the leaves, or this test proves nothing.
  for (const k of ['name', 'limits.rss', 'leak.minGrowth', 'recycle.killTimeout', 'metrics.port', 'stickyHeader']) t.true(keys.includes(k), `the schema walk missed ${k}`);
  const doc = read('docs/configuration.md');
  const missing = keys.filter((k) => !doc.includes(`| \`${k}\` |`));
  t.deepEqual(missing, [], `config keys without a row in docs/configuration.md's table: ${missing.join(', ')}`);
});

test('every event name is documented in docs/events.md', (t) => {
  const doc = read('docs/events.md');
  const names = Object.values(EVENTS);
  t.true(names.length > 0);
  const noRow = names.filter((n) => !doc.includes(`| \`${n}\` |`));
  const noSection = names.filter((n) => !doc.includes(`### \`${n}\``));
  t.deepEqual(noRow, [], `events without a row in docs/events.md's summary: ${noRow.join(', ')}`);
  t.deepEqual(noSection, [], `events without a "### \`name\`" section in docs/events.md: ${noSection.join(', ')}`);
});

// Citations of documents that live outside the repository: a design document by section number,
// incident write-ups by file number. The repository's own are docs/*.md ("docs/incidents.md, incident 3").
const CITATIONS = [/\bDESIGN\b/, /\bseed 0\d\d\b/i, /\bseeds\//i];
const SCANNED = ['src', 'test', 'bench', 'docs', 'examples', 'README.md', 'Dockerfile'];
const TEXT = /\.(?:c?m?js|md|json|ya?ml|txt|sh)$|(?:^|\/)Dockerfile$/;

// Citations that are not comments (test titles, a bench's printed text and the results it wrote):
// left for those files' owners. Remove an entry once its line is reworded; a stale entry fails.
const NOT_COMMENTS = [];

test('nothing cites a document the repository does not hold', (t) => {
  const files = SCANNED.flatMap(filesUnder).filter((f) => TEXT.test(f) && f !== SELF);
  t.true(files.length > 100, `only ${files.length} files scanned`);
  const found = [];
  for (const file of files) {
    read(file).split('\n').forEach((line, i) => {
      if (CITATIONS.some((re) => re.test(line))) found.push({ file, line: i + 1, text: line.trim() });
    });
  }
  const allowed = (f) => NOT_COMMENTS.some((a) => a.file === f.file && f.text.includes(a.text));
  const cited = found.filter((f) => !allowed(f)).map((f) => `${f.file}:${f.line}: ${f.text}`);
  t.deepEqual(cited, [], 'cite docs/ instead (e.g. "docs/incidents.md, incident 3", "docs/design.md")');
  const stale = NOT_COMMENTS.filter((a) => !found.some((f) => f.file === a.file && f.text.includes(a.text)));
  t.deepEqual(stale, [], 'these lines no longer cite: drop them from NOT_COMMENTS');
});
