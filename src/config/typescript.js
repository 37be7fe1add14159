// Whether the workers' Node can run a TypeScript entry, settled before anything forks, so that a
// line without type stripping, or code that strip-only mode refuses, is one line at start rather
// than a crash loop. Also the words for a supervisor.config.ts the primary's Node cannot load.
import { execFile } from 'node:child_process';
import { basename, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodesupError } from '../errors.js';

/** Entry extensions Node runs by type stripping (.tsx it never runs). */
export const TS_EXTENSIONS = Object.freeze(['.ts', '.mts', '.cts']);

// A flag that runs code before the entry may register a loader that compiles TypeScript (tsx,
// ts-node, @swc-node/register): nodesup cannot see into it, so it takes the app's word.
const LOADER_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);
const LOADER_HINT = "nodeArgs: ['--import', 'tsx']";
const PROBE = fileURLToPath(new URL('./typescript-probe.js', import.meta.url));
const PROBE_TIMEOUT_MS = 10_000;

const lineOf = (version) => String(version).split('.').map(Number);

/** Whether Node `version` strips types with no flag: from 22.18 on 22, and from 23.6. */
export function stripsByDefault(version) {
  const [major, minor] = lineOf(version);
  return major > 23 || (major === 23 && minor >= 6) || (major === 22 && minor >= 18);
}

// Before 22.6 the flags do not exist: Node refuses them as bad options.
function hasStripFlags(version) {
  const [major, minor] = lineOf(version);
  return major > 22 || (major === 22 && minor >= 6);
}

/**
 * How the workers' Node treats a TypeScript entry, from its version and the flags the workers get
 * (NODE_OPTIONS first, then nodeArgs: the command line wins). `mode`: 'strip', 'transform',
 * 'loader' (a flag that may bring one), or false; `offBy`: the flag that turned stripping off.
 * @param {string} version  process.versions.node
 * @param {string[]} args
 * @returns {{mode: 'strip'|'transform'|'loader'|false, offBy: string|null}}
 */
export function typeScriptMode(version, args) {
  let mode = stripsByDefault(version) ? 'strip' : false;
  let offBy = null;
  for (const arg of args) {
    const flag = String(arg).split('=')[0].replace(/_/g, '-');
    if (LOADER_FLAGS.has(flag)) return { mode: 'loader', offBy: null };
    if (!hasStripFlags(version)) continue;
    if (flag === '--experimental-strip-types') [mode, offBy] = ['strip', null];
    else if (flag === '--experimental-transform-types') [mode, offBy] = ['transform', null];
    else if (flag === '--no-experimental-strip-types') [mode, offBy] = [false, flag];
  }
  return { mode, offBy };
}

/**
 * Refuse, in one line with what to do, a TypeScript entry the workers' Node cannot run: no type
 * stripping on this line, stripping turned off, a .tsx file, or syntax strip-only mode does not
 * take (enum, namespace, parameter properties) in the entry or a .ts module it imports.
 * @param {string} script  absolute path
 * @param {{nodeArgs?: string[], nodeOptions?: string, version?: string, execPath?: string}} o
 *   nodeOptions: the workers' NODE_OPTIONS (config env, else the primary's own)
 */
export async function checkTypeScriptEntry(script, { nodeArgs = [], nodeOptions = '', version = process.versions.node, execPath = process.execPath } = {}) {
  const ext = extname(script);
  if (ext !== '.tsx' && !TS_EXTENSIONS.includes(ext)) return;
  const { mode, offBy } = typeScriptMode(version, [...String(nodeOptions).split(/\s+/).filter(Boolean), ...nodeArgs]);
  if (mode === 'loader' || mode === 'transform') return;
  const name = basename(script);
  const fail = (msg) => new NodesupError('NODESUP_ERR_SCRIPT', `script: ${msg}`);
  if (ext === '.tsx') {
    throw fail(`${name}: Node does not run .tsx files, with or without type stripping: compile it first, or give the workers a loader: ${LOADER_HINT}`);
  }
  if (mode === false) throw fail(`${name} is TypeScript, ${cannotStrip(version, offBy)}, or give the workers a loader: ${LOADER_HINT}`);
  const refused = await probe(script, execPath);
  if (refused) {
    const where = `${refused.file}${refused.line ? `:${refused.line}` : ''}${refused.file === name ? '' : ` (imported by ${name})`}`;
    throw fail(`${where}: ${refused.message}: Node ${version} strips types but does not transform them; `
      + `write it without enum, namespace or parameter properties, or give the workers a loader: ${LOADER_HINT}`);
  }
}

// Why this Node will not strip, and the first thing to do about it.
function cannotStrip(version, offBy) {
  if (offBy) return `and ${offBy} in nodeArgs or NODE_OPTIONS turns Node's type stripping off: drop it`;
  if (hasStripFlags(version)) {
    return `which Node ${version} strips only with --experimental-strip-types (by default from 22.18): run nodesup on Node 22.18+ or 24+, set nodeArgs: ['--experimental-strip-types']`;
  }
  return `which Node ${version} cannot run (Node strips types by default from 22.18 and 23.6): run nodesup on Node 22.18+ or 24+`;
}

// The syntax check runs in a short-lived child: Node's TypeScript stripper, once loaded, keeps
// about 17 MiB in the process for good, and the primary lives as long as the app. A probe that
// cannot answer refuses nothing: the worker's own error then says what is wrong.
function probe(script, execPath) {
  return new Promise((resolve) => {
    execFile(execPath, ['--no-warnings', PROBE, script], { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
      (err, stdout) => {
        if (err) return resolve(null);
        try {
          resolve(JSON.parse(stdout).refused ?? null);
        } catch {
          resolve(null);
        }
      });
  });
}

/**
 * One line for a supervisor.config.ts the primary's Node could not load, or null when `err` is not
 * about TypeScript. The primary's own Node reads the config, so the fix is in how nodesup runs.
 */
export function typeScriptConfigProblem(file, err, version = process.versions.node) {
  if (!TS_EXTENSIONS.includes(extname(file))) return null;
  const rename = `or write it as ${basename(file).replace(/\.[mc]?ts$/, '.js')}`;
  if (err?.code === 'ERR_UNKNOWN_FILE_EXTENSION') {
    const why = hasStripFlags(version)
      ? `Node ${version} strips TypeScript only with --experimental-strip-types (by default from 22.18): run nodesup on Node 22.18+ or 24+, or with NODE_OPTIONS=--experimental-strip-types`
      : `Node ${version} cannot run TypeScript (Node strips types by default from 22.18 and 23.6): run nodesup on Node 22.18+ or 24+`;
    return `${why}, ${rename}`;
  }
  if (err?.code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') {
    const line = strippedLine(err);
    return `${firstLine(err.message)}${line ? ` (line ${line})` : ''}: Node strips types but does not transform them; write it without enum, namespace or parameter properties, ${rename}`;
  }
  return null;
}

/** The line Node's stripper refused: 24 and 26 put `:3` at the head of the stack, 22 `,-[3:1]` in the message. */
export function strippedLine(err) {
  const m = /^[^\n]*:(\d+)\n/.exec(String(err?.stack ?? '')) ?? /,-\[(\d+):\d+\]/.exec(String(err?.message ?? ''));
  return m ? Number(m[1]) : null;
}

/** The first line of a stripper's message, without the `x ` mark some lines put before it. */
export function firstLine(message) {
  const line = String(message).split(/\r?\n/).find((l) => l.trim()) ?? '';
  return line.trim().replace(/^x\s+/, '');
}
