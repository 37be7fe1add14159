// `balance` left unset is decided from the app: one that depends on socket.io or engine.io gets
// 'sticky'. engine.io's default transports start with HTTP long-polling, whose requests must all
// reach the worker holding the session; spread round-robin, a new user's socket.io app got 239
// HTTP 400s ("Session ID unknown") and 12 timed-out acks in 30 s, and none under 'sticky'.
// Everything else keeps cluster's round-robin.
//
// `balance: 'reuse-port'` is checked against the host here (core/reuse-port.js): where it would
// drop connections it falls back to round-robin, said at start; an app that long-polls is refused.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NodesupError } from '../errors.js';
import { reusePortBlocker } from '../core/reuse-port.js';
import { readMigrateReq } from '../proc/listeners.js';

/** Packages whose clients long-poll by default: the app needs sticky sessions. */
export const REALTIME_PACKAGES = Object.freeze(['socket.io', 'engine.io']);

// What an app installs to run; devDependencies are its tests' and tools' (a library that tests
// against socket.io is no socket.io app).
const RUNTIME_FIELDS = ['dependencies', 'optionalDependencies'];

/**
 * The app's manifest: the nearest package.json above the script that names a package or lists
 * dependencies. One with neither (`{"type": "module"}` in a build folder) only marks its folder's
 * module type.
 * @param {string} scriptPath  absolute
 * @returns {{file: string, pkg: object}|null}
 */
export function appManifest(scriptPath) {
  for (let dir = dirname(scriptPath); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    const pkg = readJson(file);
    if (pkg && (typeof pkg.name === 'string' || RUNTIME_FIELDS.some((f) => pkg[f] && typeof pkg[f] === 'object'))) return { file, pkg };
    if (dirname(dir) === dir) return null;
  }
}

/**
 * `balance` as configured, or decided where the config left it unset (null).
 * @param {'round-robin'|'sticky'|'reuse-port'|null} balance
 * @param {string} scriptPath  absolute
 * @param {{node: string, migrateReq: number|null}} [host]  what 'reuse-port' needs of this host
 * @returns {{balance: 'round-robin'|'sticky'|'reuse-port', balanceFrom: object|null}}
 *   balanceFrom: why the balance is not what the config said, or what it left unset became, for
 *   the start to say (config.default): {dependency, packageJson} for 'sticky',
 *   {requested: 'reuse-port', reason, detail} for a fallback; null otherwise
 */
export function decideBalance(balance, scriptPath, host = hostFacts()) {
  if (balance === 'reuse-port') return decideReusePort(scriptPath, host);
  if (balance) return { balance, balanceFrom: null };
  const realtime = realtimeDependency(scriptPath);
  if (!realtime) return { balance: 'round-robin', balanceFrom: null };
  return { balance: 'sticky', balanceFrom: realtime };
}

function decideReusePort(scriptPath, host) {
  const realtime = realtimeDependency(scriptPath);
  if (realtime) {
    throw new NodesupError('NODESUP_ERR_CONFIG', `balance: 'reuse-port' lets the kernel pick each connection's worker, and ${realtime.packageJson} ` +
      `depends on ${realtime.dependency}, whose long-polling needs every request of a session on one worker: use balance: 'sticky' (or leave balance unset)`);
  }
  const blocker = reusePortBlocker(host);
  if (!blocker) return { balance: 'reuse-port', balanceFrom: null };
  return { balance: 'round-robin', balanceFrom: { requested: 'reuse-port', ...blocker } };
}

// The runtime dependency that makes the app long-poll by default, or null.
function realtimeDependency(scriptPath) {
  const found = appManifest(scriptPath);
  const dependency = found && REALTIME_PACKAGES.find((name) => RUNTIME_FIELDS.some((f) => Object.hasOwn(found.pkg[f] ?? {}, name)));
  return dependency ? { dependency, packageJson: found.file } : null;
}

/** What 'reuse-port' needs of this host, read now. */
export function hostFacts() {
  return { node: process.versions.node, migrateReq: readMigrateReq() };
}

function readJson(file) {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}
