// The configuration schema (docs/configuration.md). zod gives the structure, the defaults and unknown-key
// detection; every leaf carries the human "expected …" text, so each error is one line:
// `supervisor.config.js: limits.rss: expected a size like "512mb", got "lots"`.
import { z } from 'zod';
import { configError, NodesupError } from '../errors.js';
import { parseSize, parseDuration, parseRate, parsePercent, formatDuration } from '../units.js';

// It names a socket file and is typed after commands: no leading '.' (hidden) or '-' (a flag).
export const NAME_RE = /^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,63}$/;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const MAX_WORKERS = 1024;

/**
 * A leaf that normalises its input. `parse` returns `{ value }`, or a string saying what was
 * expected instead (e.g. a bound), or undefined for the leaf's own `expected`.
 */
function leaf(expected, parse) {
  return z.any().transform((v, ctx) => {
    const out = parse(v);
    if (out !== undefined && typeof out !== 'string') return out.value;
    ctx.issues.push({ code: 'custom', message: out ?? expected, input: v });
    return z.NEVER;
  });
}

// A unit leaf (size, duration, rate) with a lower bound that gets its own wording.
function unit(parser, expected, min, belowMin) {
  return leaf(expected, (v) => {
    const n = parser(v);
    if (n === null) return undefined;
    return n < min ? belowMin : { value: n };
  });
}

const SIZE = 'a size like "512mb"';
const DURATION = 'a duration like "10s"';
const size = () => unit(parseSize, SIZE, 1, 'a size above 0');
const duration = (min = 0, belowMin = 'a duration above 0') => unit(parseDuration, DURATION, min, belowMin);
const positiveDuration = () => duration(1);
const MAX_TIMER_MS = 2 ** 31 - 1;
const timer = (min = 0, belowMin = 'a duration above 0') => leaf(DURATION, (v) => {
  const n = parseDuration(v);
  if (n === null) return undefined;
  if (n > MAX_TIMER_MS) return 'a duration up to 24d';
  return n < min ? belowMin : { value: n };
});
const int = (lo, hi, expected) =>
  leaf(expected, (v) => (Number.isInteger(v) && v >= lo && v <= hi ? { value: v } : undefined));
const positiveInt = () => int(1, Number.MAX_SAFE_INTEGER, 'a positive integer');
const bool = () => z.boolean({ error: 'true or false' });
// Numbers are accepted where a string is wanted: `env: { PORT: 3000 }` is what people write.
const text = (alsoBool = false) => leaf('a string', (v) =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || (alsoBool && typeof v === 'boolean')
    ? { value: String(v) } : undefined);
const strings = () => z.array(text(), { error: 'an array of strings' });

/** An object section that may also be `false` (off) or `true` (on, with defaults). */
function switchable(object, expected, coerce = (v) => v) {
  return z.preprocess((v) => (v === true ? {} : coerce(v)), z.union([z.literal(false), object], { error: expected }));
}

// 'host:port', ':port', '[::1]:port' or 'port'; anything else is left for the union to reject.
function parseHostPort(v) {
  if (typeof v !== 'string') return v;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(v.trim()) ?? /^()()(\d{1,5})$/.exec(v.trim());
  if (!m || Number(m[3]) > 65535) return v;
  const host = m[1] || m[2];
  return host ? { host, port: Number(m[3]) } : { port: Number(m[3]) };
}

const totalRss = leaf('a size like "4gb" or a percentage like "90%"', (v) => {
  const fraction = parsePercent(v);
  if (fraction !== null) return { value: { fraction } };
  const bytes = parseSize(v);
  return bytes > 0 ? { value: { bytes } } : undefined;
});

const limits = z.strictObject({
  rss: size().nullable().default(null),
  heapUsed: size().nullable().default(null),
  native: size().nullable().default(null),
  totalRss: totalRss.nullable().default(null),
  maxAge: positiveDuration().nullable().default(null),
  maxRequests: positiveInt().nullable().default(null),
  jitter: leaf('a number from 0 to 1', (v) => (typeof v === 'number' && v >= 0 && v <= 1 ? { value: v } : undefined)).default(0.1),
  sustain: duration().prefault(0),
}, { error: 'an object' });

const leak = z.strictObject({
  window: positiveDuration().prefault('5m'),
  minGrowth: unit(parseRate, 'a rate like "2mb/min"', Number.MIN_VALUE, 'a rate above 0').prefault('1mb/min'),
  action: z.enum(['recycle', 'warn'], { error: '"recycle" or "warn"' }).default('recycle'),
  warmUp: duration().prefault('150s'),
}, { error: 'an object' });

const recycle = z.strictObject({
  readyTimeout: timer(1).prefault('30s'),
  killTimeout: timer().prefault('10s'),
  maxConcurrent: positiveInt().default(1),
  predictive: z.boolean({ error: 'true or false' }).default(true),
}, { error: 'an object' });

const restart = z.strictObject({
  initialDelay: timer().prefault('100ms'),
  maxDelay: timer().prefault('30s'),
  maxCrashes: positiveInt().default(10),
  crashWindow: positiveDuration().prefault('60s'),
}, { error: 'an object' });

const unresponsive = z.strictObject({
  timeout: positiveDuration().prefault('15s'),
}, { error: 'an object' });

const metrics = z.strictObject({
  host: leaf('a host name or IP address', (v) => (typeof v === 'string' && v.trim() ? { value: v.trim() } : undefined)).default('127.0.0.1'),
  port: int(0, 65535, 'an integer from 0 to 65535').default(9209),
}, { error: 'an object' });

// Where leak evidence goes (pprof profiles, the heap snapshots of drained workers); null: a
// directory under the OS temp dir named for the supervisor (report/profiles/diagnose-dir.js).
const diagnose = z.strictObject({
  dir: leaf('a directory path', (v) => (typeof v === 'string' && v.trim() ? { value: v.trim() } : undefined)).nullable().default(null),
  snapshots: z.boolean({ error: 'true or false' }).default(true),
  snapshotTimeout: positiveDuration().prefault('60s'),
  keepSnapshots: z.boolean({ error: 'true or false' }).default(false),
}, { error: 'an object' });

const log = z.strictObject({
  level: z.enum(LOG_LEVELS, { error: `one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  format: z.enum(['json', 'pretty'], { error: '"json" or "pretty"' }).default('json'),
}, { error: 'an object' });

const config = z.strictObject({
  name: leaf('1-64 letters, digits, ".", "_" or "-", not starting with "." or "-"', (v) => (typeof v === 'string' && NAME_RE.test(v) ? { value: v } : undefined)).optional(),
  script: leaf('a file path', (v) => (typeof v === 'string' && v.trim() ? { value: v } : undefined)).optional(),
  args: strings().default(() => []),
  env: z.record(z.string(), text(true), { error: 'an object of strings' }).default(() => ({})),
  nodeArgs: strings().default(() => []),
  workers: leaf('a positive integer or "max"', (v) => {
    if (v === 'max') return { value: v };
    if (!Number.isInteger(v) || v < 1) return undefined;
    return v <= MAX_WORKERS ? { value: v } : `a positive integer up to ${MAX_WORKERS} or "max"`;
  }).default('max'),
  pollInterval: timer(100, 'a duration of at least 100ms').prefault('1s'),
  limits: limits.prefault({}),
  leak: switchable(leak, 'an object like { window, minGrowth, action } or false').prefault({}),
  gcBeforeRecycle: bool().default(true),
  recycle: recycle.prefault({}),
  restart: restart.prefault({}),
  unresponsive: switchable(unresponsive, 'an object like { timeout } or false').prefault({}),
  metrics: switchable(metrics, 'an object like { host, port }, "host:port" or false', parseHostPort).prefault({}),
  log: log.prefault({}),
  diagnose: diagnose.prefault({}),
  tui: bool().default(false),
  // null: decided at load from the app's package.json (config/realtime-default.js).
  balance: z.enum(['round-robin', 'sticky', 'reuse-port'], { error: '"round-robin", "sticky" or "reuse-port"' }).nullable().default(null),
  stickyHeader: z.union([z.null(), leaf('a header name like "x-forwarded-for"', (v) => (typeof v === 'string' && /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(v) ? { value: v.toLowerCase() } : undefined))], { error: 'a header name like "x-forwarded-for", or null' }).default(null),
}, { error: 'an object or a function returning one' });

// Keys of each object section, for "did you mean" on an unknown key.
const SECTIONS = { '': config, limits, leak, recycle, restart, unresponsive, metrics, log, diagnose };

// Names people bring from PM2 or from our own CLI flags, pointing at our key.
const ALIASES = {
  instances: 'workers', max_memory_restart: 'limits.rss', maxMemoryRestart: 'limits.rss',
  maxRss: 'limits.rss', rss: 'limits.rss', maxHeap: 'limits.heapUsed', heapUsed: 'limits.heapUsed',
  killTimeout: 'recycle.killTimeout', kill_timeout: 'recycle.killTimeout', node_args: 'nodeArgs',
  maxAge: 'limits.maxAge', maxRequests: 'limits.maxRequests', logLevel: 'log.level', level: 'log.level',
};

/**
 * Validated, normalised config (sizes in bytes, durations in ms, rates in bytes/s), defaults filled;
 * `script` is left as written and `workers` may still be 'max'. Throws NODESUP_ERR_CONFIG for the
 * first problem. `where` is the file name, or a function key → flag name for values from flags.
 * @param {unknown} raw
 * @param {string | ((key: string) => string)} where
 */
export function validateConfig(raw, where) {
  const result = config.safeParse(raw);
  if (!result.success) throw describe(firstIssue(result.error.issues), [], raw, where);
  checkRelations(result.data, raw, where);
  return result.data;
}

/** Every default, normalised; what an empty config file means. */
export function defaultConfig() {
  return validateConfig({}, 'defaults');
}

// A typo'd key is the likeliest root cause of everything else, so it goes first.
function firstIssue(issues) {
  return issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0];
}

function describe(issue, prefix, raw, where) {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union') {
    // When one branch got past the type check (its issues are all inside the value), the user
    // meant that shape; report what is wrong inside it rather than "expected an object or false".
    const branch = issue.errors.find((b) => b.length > 0 && b.every((i) => i.path.length > 0));
    if (branch) return describe(firstIssue(branch), path, raw, where);
  }
  if (issue.code === 'unrecognized_keys') return unknownKey(where, path, issue.keys[0]);
  return fail(where, keyOf(path), issue.message, valueAt(raw, path));
}

function unknownKey(where, path, bad) {
  const key = keyOf([...path, bad]);
  const section = SECTIONS[keyOf(path)];
  const known = section ? Object.keys(section.shape) : [];
  const guess = closest(bad, known) ?? (path.length === 0 && Object.hasOwn(ALIASES, bad) ? ALIASES[bad] : undefined);
  const hint = guess ? `did you mean "${guess}"?` : `expected one of ${known.join(', ')}`;
  const head = typeof where === 'function' ? where(key) : `${where}: ${key}`;
  return new NodesupError('NODESUP_ERR_CONFIG', `${head}: unknown key (${hint})`);
}

function fail(where, key, expected, got) {
  if (typeof where === 'string') return configError(where, key || 'export default', expected, got);
  // A flag names its key itself: `--max-rss: expected …`, not `--max-rss: limits.rss: expected …`.
  // configError('', '', …) reads ": : expected …"; reuse its formatting of `got`.
  const tail = configError('', '', expected, got).message.slice(4);
  return new NodesupError('NODESUP_ERR_CONFIG', `${where(key)}: ${tail}`);
}

// Relations between keys that no single leaf can check.
function checkRelations(cfg, raw, where) {
  const { initialDelay, maxDelay } = cfg.restart;
  if (maxDelay < initialDelay) {
    throw fail(where, 'restart.maxDelay', `a duration of at least restart.initialDelay (${formatDuration(initialDelay)})`,
      valueAt(raw, ['restart', 'maxDelay']) ?? formatDuration(maxDelay));
  }
}

// 'limits.rss', 'args[0]', 'env.PORT'
function keyOf(path) {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : !/^[A-Za-z_$][\w$-]*$/.test(String(p)) ? `[${JSON.stringify(String(p))}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

// The raw value at `path`; a non-object on the way is the value the user wrote ('host:port').
function valueAt(raw, path) {
  let v = raw;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return v;
    v = v[p];
  }
  return v;
}

// The known key within a small edit distance, or with other case: `rsss` → `rss`, `heapused` → `heapUsed`.
function closest(bad, known) {
  let best;
  let bestD = Infinity;
  for (const k of known) {
    const d = k.toLowerCase() === bad.toLowerCase() ? 0 : distance(bad, k);
    if (d < bestD) { best = k; bestD = d; }
  }
  return bestD <= Math.max(1, Math.floor(bad.length / 3)) ? best : undefined;
}

// Edit distance where swapping two neighbours counts once ("prot" → "port"): optimal string alignment.
function distance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
