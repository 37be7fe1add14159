// Writes a heap snapshot of a tiny app from fixtures/ into a test's tmp dir: real V8 output,
// written by the Node that runs the tests, nothing committed as a blob.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('fixtures/', import.meta.url));
const run = promisify(execFile);

/** A fresh directory under the system's tmp, removed when the test file ends. */
export function tmpDir(test) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodesup-retainers-'));
  test.after.always(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `script` (a path) so it writes its snapshot to `out`; resolves to `out`. */
export async function writeSnapshot(script, out, { env = {}, cwd = path.dirname(script) } = {}) {
  await run(process.execPath, [script, out], { cwd, env: { ...process.env, ...env }, timeout: 60_000 });
  return out;
}

/** The 1-based line of the first line of `file` that contains `text`. */
export function lineOf(file, text) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.includes(text));
  if (at < 0) throw new Error(`${text} not in ${file}`);
  return at + 1;
}
