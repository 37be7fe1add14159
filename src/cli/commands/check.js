// `nodesup check <script> [-- app args]`: the leak gate for CI. The app runs under nodesup as
// `start` runs it, the team's load drives it, and the exit status says what came of it: 0 nothing
// named (or too short to judge, said so), 1 a leak named or a memory limit reached, 2 the app or
// the load could not run. Every flag is checked before anything starts (docs/ci-gate.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NodesupError } from '../../errors.js';
import { parseDuration } from '../../units.js';
import { appOptions } from './app-options.js';

export const command = 'check [script]';
export const describe = 'CI leak gate: run the app under a load, exit 1 when a leak is named';

export function builder(y) {
  return appOptions(y)
    .option('load', { type: 'string', describe: 'the load command, run through a shell in this directory once the workers are ready' })
    .option('duration', { type: 'string', describe: 'how long the app runs without --load (its own traffic), e.g. 4m; with --load, a cap' })
    .option('json', { type: 'boolean', describe: 'print the report as one JSON document' })
    .option('junit', { type: 'string', describe: 'also write the report as JUnit XML to this file' })
    .option('log', { type: 'string', describe: "write the supervisor's NDJSON log to this file" })
    .option('name', { type: 'string', describe: 'supervisor name (default: the config\'s, with "-check")' });
}

const usage = (msg) => new NodesupError('NODESUP_ERR_USAGE', `check: ${msg}`);

/** The check's own flags, checked before the config is loaded or anything starts. */
export function checkFlags(argv) {
  const load = argv.load === undefined ? null : String(argv.load).trim();
  if (load === '') throw usage('--load: expected a command, got an empty string');
  let durationMs = null;
  if (argv.duration !== undefined) {
    try {
      durationMs = parseDuration(String(argv.duration));
    } catch {
      durationMs = NaN;
    }
    if (!(durationMs > 0)) throw usage(`--duration: expected a duration above 0 like "4m" or "240s", got ${JSON.stringify(String(argv.duration))}`);
  }
  if (load === null && durationMs === null) {
    throw usage('name a load: --load "<command>" (e.g. --load "npx autocannon -d 240 http://127.0.0.1:3000/"), or --duration 4m to let the app\'s own traffic drive it');
  }
  for (const flag of ['junit', 'log']) if (argv[flag] !== undefined) writableFile(flag, argv[flag]);
  return { load, durationMs };
}

// A report file must be writable where it is named, or the check would run for minutes and then fail.
function writableFile(flag, file) {
  const f = String(file);
  if (!f.trim()) throw usage(`--${flag}: expected a file path, got an empty string`);
  const dir = path.dirname(path.resolve(f));
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw usage(`--${flag}: the directory ${dir} does not exist; create it first`);
  if (fs.existsSync(f) && fs.statSync(f).isDirectory()) throw usage(`--${flag}: ${f} is a directory; name a file`);
}

export async function handler(argv) {
  const { load, durationMs } = checkFlags(argv);
  const { loadConfig, flagsToConfig } = await import('../../config/load.js');
  const { checkConfig } = await import('../../check/check-config.js');
  const { runCheck } = await import('../../check/run.js');
  const { reportLines } = await import('../../check/report-text.js');
  const { junitXml } = await import('../../check/junit.js');
  const cwd = process.cwd();
  const loaded = await loadConfig({ cwd, configPath: argv.config, flags: flagsToConfig(argv), script: argv.script, appArgs: argv['--'] ?? [] });
  const config = checkConfig(loaded, { log: argv.log !== undefined, named: argv.name !== undefined });
  const logFd = argv.log !== undefined ? fs.openSync(argv.log, 'w', 0o600) : null;
  const script = argv.script ?? path.relative(cwd, config.script);
  let doc;
  try {
    doc = await runCheck(config, { load, durationMs, cwd, logFd, script });
  } finally {
    if (logFd !== null) fs.closeSync(logFd);
  }
  if (argv.junit !== undefined) fs.writeFileSync(argv.junit, junitXml(doc, { hostname: os.hostname() }));
  process.stdout.write(argv.json ? `${JSON.stringify(doc, null, 2)}\n` : `${reportLines(doc).join('\n')}\n`);
  if (doc.failure) process.stderr.write(`nodesup: check: ${doc.failure.reason}\n`);
  process.exitCode = doc.exitCode;
}
