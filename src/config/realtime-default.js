// `balance` left unset is decided from the app: one that depends on socket.io or engine.io gets
// 'sticky'. engine.io's default transports start with HTTP long-polling, whose requests must all
// reach the worker holding the session; spread round-robin, a new user's socket.io app got 239
// HTTP 400s ("Session ID unknown") and 12 timed-out acks in 30 s, and none under 'sticky'.
// Everything else keeps cluster's round-robin.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
 * @param {'round-robin'|'sticky'|null} balance
 * @param {string} scriptPath  absolute
 * @returns {{balance: 'round-robin'|'sticky', balanceFrom: {dependency: string, packageJson: string}|null}}
 *   balanceFrom: why 'sticky' was decided, for the start to say (config.default); null when the config chose or nothing asked for it
 */
export function decideBalance(balance, scriptPath) {
  if (balance) return { balance, balanceFrom: null };
  const found = appManifest(scriptPath);
  const dependency = found && REALTIME_PACKAGES.find((name) => RUNTIME_FIELDS.some((f) => Object.hasOwn(found.pkg[f] ?? {}, name)));
  if (!dependency) return { balance: 'round-robin', balanceFrom: null };
  return { balance: 'sticky', balanceFrom: { dependency, packageJson: found.file } };
}

function readJson(file) {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}
