// Every NODESUP_ERR_* code, defined once. Messages say what was expected, what we got, and what to do.

/** Exit code for each error kind (2 usage/config, 1 runtime; README, "Errors"). */
export const EXIT = Object.freeze({ OK: 0, RUNTIME: 1, USAGE: 2 });

const defs = {
  NODESUP_ERR_CONFIG: { exit: EXIT.USAGE, doc: 'A configuration key or CLI flag has a bad value.' },
  NODESUP_ERR_CONFIG_LOAD: { exit: EXIT.USAGE, doc: 'The config file cannot be read or evaluated.' },
  NODESUP_ERR_SCRIPT: { exit: EXIT.USAGE, doc: 'The app script is missing, unreadable, or TypeScript this Node cannot run.' },
  NODESUP_ERR_USAGE: { exit: EXIT.USAGE, doc: 'A command was called with bad arguments.' },
  NODESUP_ERR_CRASH_LOOP: { exit: EXIT.RUNTIME, doc: 'Workers crashed maxCrashes times within crashWindow.' },
  NODESUP_ERR_NOT_RUNNING: { exit: EXIT.RUNTIME, doc: 'No supervisor with that name is running.' },
  NODESUP_ERR_AMBIGUOUS: { exit: EXIT.USAGE, doc: 'Several supervisors run; name one.' },
  NODESUP_ERR_CONTROL: { exit: EXIT.RUNTIME, doc: 'The control socket answered with an error.' },
  NODESUP_ERR_ALREADY_RUNNING: { exit: EXIT.USAGE, doc: 'A supervisor with that name already runs.' },
  NODESUP_ERR_BIND: { exit: EXIT.RUNTIME, doc: 'A socket nodesup needs could not be bound.' },
  NODESUP_ERR_NO_ROOM: { exit: EXIT.RUNTIME, doc: 'A heap snapshot was refused: too little memory or disk for it.' },
  NODESUP_ERR_SNAPSHOT: { exit: EXIT.RUNTIME, doc: 'A heap snapshot cannot be read: missing, truncated or garbled.' },
};

/** The registry, for docs and for the test that keeps it honest. */
export const ERROR_CODES = Object.freeze(Object.fromEntries(Object.entries(defs).map(([k, v]) => [k, v.doc])));

/** An error with a code and the exit code the CLI should use. */
export class NodesupError extends Error {
  /** @param {keyof typeof defs} code @param {string} message */
  constructor(code, message, { cause } = {}) {
    super(message, { cause });
    if (!defs[code]) throw new TypeError(`unknown error code ${code}`);
    this.name = 'NodesupError';
    this.code = code;
    this.exitCode = defs[code].exit;
  }
}

/** Shorthand for the one-line validation error: `where: key: expected …, got …`. */
export function configError(where, key, expected, got) {
  const shown = typeof got === 'string' ? (got.length > 200 ? `${JSON.stringify(got.slice(0, 197))}...` : JSON.stringify(got)) : safeShow(got);
  return new NodesupError('NODESUP_ERR_CONFIG', `${where}: ${key}: expected ${expected}, got ${shown}`);
}

function safeShow(v) {
  if (v === undefined) return 'nothing';
  if (typeof v === 'function') return 'a function';
  try {
    const s = JSON.stringify(v);
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
  } catch {
    // A cycle (JSON cannot spell it) would read "[object Object]".
    if (v !== null && typeof v === 'object') return Array.isArray(v) ? 'an array that contains itself' : 'an object that contains itself';
    return String(v);
  }
}
