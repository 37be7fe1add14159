// Run as a short-lived child by typescript.js, with the Node the workers will run: does strip-only
// mode take this TypeScript entry and the .ts modules it imports statically? Prints one JSON line,
// {"refused": {file, line, message}} for the first file it refuses, or {"refused": null}. Only
// what Node itself refuses (ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX: enum, namespace, parameter
// properties…) counts: anything else is left for the worker to say.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { firstLine, strippedLine } from './typescript.js';

const MAX_FILES = 200;
// A static import or re-export of a relative .ts module, in code whose types are already gone:
// `import type` lines are blank by then, and a dynamic import() may never run.
const IMPORT_RE = /^[ \t]*(?:import|export)\b[^'";]*?['"](\.{1,2}\/[^'"\n]+\.[mc]?ts)['"]/gm;

const entry = resolve(process.argv[2]);
process.stdout.write(`${JSON.stringify({ refused: firstRefused(entry) })}\n`);

function firstRefused(start) {
  // Before 22.13 Node has no stripper to ask; the worker's own error will have to do.
  if (typeof module.stripTypeScriptTypes !== 'function') return null;
  const queue = [start];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const file = queue.shift();
    let code;
    try {
      code = module.stripTypeScriptTypes(readFileSync(file, 'utf8'));
    } catch (err) {
      if (err?.code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') {
        return { file: relative(dirname(start), file) || file, line: strippedLine(err), message: firstLine(err.message) };
      }
      continue;
    }
    for (const [, spec] of code.matchAll(IMPORT_RE)) {
      const next = resolve(dirname(file), spec);
      if (seen.size < MAX_FILES && !seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return null;
}
