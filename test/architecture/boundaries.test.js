// The layers' boundaries, read from the code's own imports: the decision core judges, the primary
// acts, the report words and shows, and the control socket is wire alone. A judgement made twice
// is an answer that can disagree, so only the policy may reach the judges.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = path.join(ROOT, 'src');

function sourceFiles(dir = SRC) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return d.name.endsWith('.js') ? [p] : [];
  });
}

/** Every relative module a file imports (static, dynamic and re-exports), as repo paths. */
export function importsOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  const out = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    out.push(path.relative(ROOT, path.resolve(path.dirname(file), m[1])));
  }
  return out;
}

const rel = (f) => path.relative(ROOT, f);
const FILES = sourceFiles().map((f) => ({ file: rel(f), imports: importsOf(f) }));

function breaches(from, forbidden) {
  return FILES.filter((f) => from(f.file)).flatMap((f) => f.imports.filter(forbidden).map((i) => `${f.file} → ${i}`));
}

// The judges: who detects a leak, fits a trend, gives advice.
const JUDGES = new Set([
  'src/core/leak/leak-detector.js', 'src/core/leak/heap-confirm.js', 'src/core/leak/external-leak.js',
  'src/core/leak/handle-trend.js', 'src/core/leak/slot-story.js',
  'src/core/forecast/trend.js', 'src/core/forecast/worker-trend.js', 'src/core/policy/advice.js',
]);
const JUDGING = ['src/core/policy/', 'src/core/leak/', 'src/core/forecast/'];

test('the parser sees imports: this file set is not empty and the supervisor imports its parts', (t) => {
  t.true(FILES.length > 50, `${FILES.length} files`);
  const sup = FILES.find((f) => f.file === 'src/primary/supervisor.js');
  t.true(sup.imports.includes('src/core/policy/decide.js'), sup.imports.join(', '));
  t.true(breaches((f) => f === 'src/primary/supervisor.js', (i) => i === 'src/core/policy/decide.js').length === 1);
});

test('only the policy reaches the judges: leak detectors, the trend and the advice', (t) => {
  t.deepEqual(breaches((f) => !JUDGING.some((d) => f.startsWith(d)), (i) => JUDGES.has(i)), []);
});

test('the control socket is wire alone: src/control imports nothing from src/primary', (t) => {
  t.deepEqual(breaches((f) => f.startsWith('src/control/'), (i) => i.startsWith('src/primary/')), []);
});

test('the report side imports nothing from the primary', (t) => {
  t.deepEqual(breaches((f) => f.startsWith('src/report/'), (i) => i.startsWith('src/primary/')), []);
});

test('the report side judges nothing: it imports nothing from the decision core', (t) => {
  t.deepEqual(breaches((f) => f.startsWith('src/report/'), (i) => i.startsWith('src/core/')), []);
});

test('the core is pure: it imports nothing from the primary, the report, the control socket or /proc', (t) => {
  const shell = ['src/primary/', 'src/report/', 'src/control/', 'src/proc/', 'src/cli/'];
  t.deepEqual(breaches((f) => f.startsWith('src/core/'), (i) => shell.some((d) => i.startsWith(d))), []);
});

test('the agent runs inside the app: src/worker imports nothing from the primary or the report', (t) => {
  t.deepEqual(breaches((f) => f.startsWith('src/worker/'), (i) => i.startsWith('src/primary/') || i.startsWith('src/report/')), []);
});

test('no folder holds more than about a dozen files', (t) => {
  const counts = {};
  for (const { file } of FILES) counts[path.dirname(file)] = (counts[path.dirname(file)] ?? 0) + 1;
  t.deepEqual(Object.entries(counts).filter(([, n]) => n > 13), []);
});
