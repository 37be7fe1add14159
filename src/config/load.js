// From a directory, CLI flags and a script to one normalised Config: find and evaluate
// supervisor.config.js, merge defaults < file < flags, validate, and check the script exists.
// Everything that can be refused is refused here, before anything forks.
import { statSync, accessSync, constants as fsc } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { NodesupError, configError } from '../errors.js';
import { readCgroup } from '../proc/cgroup.js';
import { validateConfig, NAME_RE } from './validate.js';
import { abortingFlag } from '../core/node-lines.js';

// What to tell a user whose nodeArgs hold a flag that aborts the workers on this Node (node-lines.js).
export const ABORTING_WORDS = {
  '--no-parallel-marking': { why: 'V8 fails a check at the first full GC', fix: 'drop it (Node 24 accepts it); --no-concurrent-marking alone runs' },
  '--experimental-transform-types': {
    why: 'this Node does not know the flag, so no worker would start',
    fix: "TypeScript that needs transforming takes a loader here (nodeArgs: ['--import', 'tsx']); Node 22.7+ and 24 accept the flag",
  },
};
import { CONFIG_FILE_NAMES } from './template.js';
import { decideBalance } from './realtime-default.js';
import { checkTypeScriptEntry, typeScriptConfigProblem } from './typescript.js';
import { logicalCwd } from './logical-cwd.js';

const require = createRequire(import.meta.url);

// Flag (as yargs names it) → config key. Each `start` flag is also a config key (docs/configuration.md).
const FLAGS = [
  ['workers', 'workers', (v) => (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v)],
  ['max-rss', 'limits.rss'],
  ['max-heap', 'limits.heapUsed'],
  ['poll-interval', 'pollInterval'],
  ['kill-timeout', 'recycle.killTimeout'],
  ['tui', 'tui'],
  // `--metrics false` arrives as a string; 'host:port' strings are parsed by the schema.
  ['metrics', 'metrics', (v) => (v === 'false' ? false : v === 'true' ? true : v)],
  ['log-level', 'log.level'],
  ['log-format', 'log.format'],
  ['name', 'name'],
];
const FLAG_OF_KEY = new Map(FLAGS.map(([flag, key]) => [key, `--${flag}`]));

/** Config-shaped partial from yargs argv: only the flags that were given (absent ones must not override the file). */
export function flagsToConfig(argv = {}) {
  const out = {};
  for (const [flag, key, convert = (v) => v] of FLAGS) {
    const value = argv[flag] ?? argv[camel(flag)];
    if (value !== undefined) setAt(out, key.split('.'), convert(value));
  }
  return out;
}

/** The flag that sets a config key ('limits.rss' → '--max-rss'), for error messages. */
export function flagOf(key) {
  for (let k = key; k; k = k.slice(0, Math.max(0, k.lastIndexOf('.')))) {
    if (FLAG_OF_KEY.has(k)) return FLAG_OF_KEY.get(k);
  }
  return `--${key}`;
}

/**
 * Load, merge and validate the configuration; throws NodesupError (exit 2) on any problem.
 * @param {{cwd?: string, configPath?: string, flags?: object, script?: string, appArgs?: string[]}} options
 * @returns {Promise<import('../types.js').Config>}
 */
export async function loadConfig({ cwd: physical = process.cwd(), configPath, flags = {}, script, appArgs = [] } = {}) {
  // `cd current && nodesup start server.js` names the release through the symlink: keep that name.
  const cwd = logicalCwd(physical);
  const file = findConfigFile(cwd, configPath);
  const fromFile = file ? await importConfig(file) : {};
  // Flags first and on their own, so a bad value is blamed on the flag: `--max-rss: expected …`.
  if (Object.keys(flags).length > 0) validateConfig(flags, flagOf);
  try {
    return await resolveConfig(merge(fromFile, flags), {
      where: file ? basename(file) : 'config', cwd, baseDir: file ? dirname(file) : cwd, configFile: file, script, appArgs,
    });
  } catch (err) {
    if (err instanceof NodesupError || !file) throw err;
    throw loadError(file, err);
  }
}

/**
 * Validate a raw config object and settle what depends on the machine: the script's absolute path,
 * the name, the worker count. Also for programmatic callers that pass an object instead of a file.
 */
export async function resolveConfig(raw, { where = 'config', cwd = logicalCwd(), baseDir = cwd, configFile = null, script, appArgs = [] } = {}) {
  const cfg = validateConfig(raw, where);
  // A script named on the command line is relative to where the user stands; one in the config
  // file is relative to that file, as for every other tool that reads a config file.
  const scriptPath = script ? resolve(cwd, script) : cfg.script ? resolve(baseDir, cfg.script) : null;
  if (!scriptPath) {
    throw new NodesupError('NODESUP_ERR_USAGE',
      'no script to run: pass one (nodesup start app.js) or set `script` in supervisor.config.js');
  }
  checkScript(scriptPath);
  checkNodeLine(cfg, where);
  // The workers' NODE_OPTIONS: the config's env, else the one they inherit from the primary.
  await checkTypeScriptEntry(scriptPath, { nodeArgs: cfg.nodeArgs, nodeOptions: cfg.env?.NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? '' });
  const { name, script: _, ...rest } = cfg;
  return {
    name: name ?? defaultName(scriptPath),
    script: scriptPath,
    ...rest,
    args: appArgs.length > 0 ? appArgs.map(String) : cfg.args,
    workers: resolveWorkers(cfg.workers),
    ...decideBalance(cfg.balance, scriptPath),
    configFile,
  };
}

// A flag that aborts every worker on this Node line is refused before anything starts, rather than
// found as a crash loop.
function checkNodeLine(cfg, where) {
  const args = [...cfg.nodeArgs, ...(cfg.env?.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)];
  const bad = abortingFlag(args, process.versions.node);
  if (bad) {
    const { why, fix } = ABORTING_WORDS[bad.flag];
    throw new NodesupError('NODESUP_ERR_CONFIG', `${where}: nodeArgs: ${bad.flag} makes Node ${process.versions.node} abort (${why}): ${fix}`);
  }
}

/** Worker count: a number as given; 'max' is the CPUs we may use, capped by a cgroup CPU quota. */
export function resolveWorkers(workers, { parallelism, cpuQuota } = {}) {
  if (workers !== 'max') return workers;
  const cpus = parallelism ?? availableParallelism();
  const quota = cpuQuota !== undefined ? cpuQuota : readCgroup().cpuQuota;
  // Round a fractional quota up: 1.5 cores keep 2 workers busier than 1 would.
  return Math.max(1, quota ? Math.min(cpus, Math.ceil(quota)) : cpus);
}

/** The default supervisor name: the script's basename without extension, made socket-safe. */
export function defaultName(scriptPath) {
  const name = basename(scriptPath, extname(scriptPath)).replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 64);
  return NAME_RE.test(name) && /[a-zA-Z0-9]/.test(name) ? name : 'app';
}

function findConfigFile(cwd, configPath) {
  if (configPath) {
    const file = resolve(cwd, configPath);
    const kind = fileKind(file);
    if (kind !== 'file') {
      throw new NodesupError('NODESUP_ERR_CONFIG_LOAD',
        `${configPath}: cannot load: ${kind === 'missing' ? 'no such file' : kind === 'dir' ? 'a directory' : 'not a readable file'} (in ${cwd})`);
    }
    return file;
  }
  return CONFIG_FILE_NAMES.map((n) => join(cwd, n)).find((f) => fileKind(f) === 'file') ?? null;
}

// Evaluates the file; its default export is an object or an (async) function returning one.
async function importConfig(file) {
  const where = basename(file);
  let mod;
  try {
    // The query busts the ESM cache (a reload re-reads the file); import() of CommonJS goes through
    // require's cache, which ignores queries, so that entry goes too.
    delete require.cache[file];
    mod = await import(`${pathToFileURL(file).href}?t=${Date.now()}`);
  } catch (err) {
    throw loadError(file, err);
  }
  const shape = 'an object or a function returning one';
  if (!('default' in mod)) throw configError(where, 'export default', shape, undefined);
  let value = mod.default;
  // TypeScript/Babel output: `exports.default = {...}` with `__esModule`.
  if (value?.__esModule && 'default' in value) value = value.default;
  if (typeof value === 'function') {
    try {
      value = await value();
    } catch (err) {
      throw loadError(file, err);
    }
  }
  if (!isPlainObject(value)) throw configError(where, 'export default', shape, value);
  return value;
}

// One line: `supervisor.config.js: cannot load: Unexpected token '}' (line 3)`.
function loadError(file, err) {
  const ts = typeScriptConfigProblem(file, err);
  if (ts) return new NodesupError('NODESUP_ERR_CONFIG_LOAD', `${basename(file)}: cannot load: ${ts}`, { cause: err });
  const first = String(err?.message ?? err).split(/\r?\n/).find((l) => l.trim()) ?? String(err?.name ?? 'error');
  const line = lineOf(file, err);
  return new NodesupError('NODESUP_ERR_CONFIG_LOAD',
    `${basename(file)}: cannot load: ${first.trim()}${line ? ` (line ${line})` : ''}${hintFor(err)}`, { cause: err });
}

// The config file's line in the stack (`file:///…/supervisor.config.js?t=1:3:7` or `/…/x.cjs:3`).
// Node 20 gives an ESM SyntaxError no location at all; `node --check` prints it (error path only).
function lineOf(file, err) {
  const paths = [pathToFileURL(file).href, file].map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(`(?:${paths.join('|')})(?:\\?[^:\\s)]*)?:(\\d+)`);
  const inStack = re.exec(String(err?.stack ?? ''));
  if (inStack) return Number(inStack[1]);
  if (!(err instanceof SyntaxError)) return null;
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 5000 });
  const m = re.exec(check.stderr ?? '');
  return m ? Number(m[1]) : null;
}

function hintFor(err) {
  const msg = String(err?.message ?? '');
  if (err?.code === 'ERR_MODULE_NOT_FOUND' && msg.includes("'nodesup'")) {
    return '; install nodesup in this project (npm i -D nodesup) or drop the defineConfig import';
  }
  if (/Cannot use import statement outside a module|Unexpected token 'export'/.test(msg)) {
    return '; name it supervisor.config.mjs or add "type": "module" to package.json';
  }
  return '';
}

function checkScript(file) {
  const fail = (why) => new NodesupError('NODESUP_ERR_SCRIPT', `script: expected a readable file, got ${JSON.stringify(file)} (${why})`);
  const kind = fileKind(file);
  if (kind === 'missing') throw fail('not found');
  if (kind === 'dir') throw fail('a directory');
  if (kind === 'unreadable') throw fail('not readable');
  if (kind !== 'file') throw fail('not a regular file');
  try {
    accessSync(file, fsc.R_OK);
  } catch {
    throw fail('not readable');
  }
}

function fileKind(file) {
  let st;
  try {
    st = statSync(file);
  } catch (err) {
    return err.code === 'ENOENT' || err.code === 'ENOTDIR' ? 'missing' : 'unreadable';
  }
  return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other';
}

// defaults < file < flags: plain objects merge key by key; anything else (arrays, false) replaces.
function merge(base, over) {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = isPlainObject(v) && isPlainObject(base[k]) ? merge(base[k], v) : v;
  }
  return out;
}

function isPlainObject(v) {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function setAt(obj, path, value) {
  let o = obj;
  for (const p of path.slice(0, -1)) o = o[p] ??= {};
  o[path.at(-1)] = value;
}

function camel(flag) {
  return flag.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
}
