import test from 'ava';
import { validateConfig, defaultConfig } from '../../src/config/validate.js';

const F = 'supervisor.config.js';
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

// Throws the validation error, so a table row can name the message it expects.
function errorOf(raw, where = F) {
  try {
    validateConfig(raw, where);
  } catch (err) {
    return err;
  }
  throw new Error(`no error for ${JSON.stringify(raw)}`);
}

test('an empty config is every default, normalised', (t) => {
  t.deepEqual(validateConfig({}, F), {
    args: [],
    env: {},
    nodeArgs: [],
    workers: 'max',
    pollInterval: 1000,
    limits: { rss: null, heapUsed: null, native: null, totalRss: null, maxAge: null, maxRequests: null, jitter: 0.1, sustain: 0 },
    leak: { window: 300_000, minGrowth: MiB / 60, action: 'recycle', warmUp: 150_000 },
    gcBeforeRecycle: true,
    recycle: { readyTimeout: 30_000, killTimeout: 10_000, maxConcurrent: 1, predictive: true },
    restart: { initialDelay: 100, maxDelay: 30_000, maxCrashes: 10, crashWindow: 60_000 },
    unresponsive: { timeout: 15_000 },
    metrics: { host: '127.0.0.1', port: 9209 },
    log: { level: 'info', format: 'json' },
    diagnose: { dir: null, snapshots: true, snapshotTimeout: 60_000, keepSnapshots: false },
    tui: false,
    balance: null, // decided at load (config/realtime-default.js)
    stickyHeader: null,
  });
});

test('defaultConfig() equals validating {}', (t) => {
  t.deepEqual(defaultConfig(), validateConfig({}, F));
});

test('default arrays and objects are not shared between configs', (t) => {
  const a = validateConfig({}, F);
  a.args.push('x');
  a.env.X = '1';
  t.deepEqual(validateConfig({}, F).args, []);
  t.deepEqual(validateConfig({}, F).env, {});
});

test('a partial nested object keeps the other defaults', (t) => {
  const c = validateConfig({ limits: { rss: '300mb' }, recycle: { killTimeout: '2s' } }, F);
  t.is(c.limits.rss, 300 * MiB);
  t.is(c.limits.jitter, 0.1);
  t.is(c.limits.heapUsed, null);
  t.deepEqual(c.recycle, { readyTimeout: 30_000, killTimeout: 2000, maxConcurrent: 1, predictive: true });
});

// [config, path, expected normalised value]
const good = [
  [{ name: 'api' }, 'name', 'api'],
  [{ name: 'my-app_2.v1' }, 'name', 'my-app_2.v1'],
  [{ script: 'server.js' }, 'script', 'server.js'],
  [{ args: ['--port', '3000'] }, 'args', ['--port', '3000']],
  [{ args: ['--port', 3000] }, 'args', ['--port', '3000']],
  [{ env: { NODE_ENV: 'production', PORT: 3000, DEBUG: true } }, 'env', { NODE_ENV: 'production', PORT: '3000', DEBUG: 'true' }],
  [{ nodeArgs: ['--max-semi-space-size=16'] }, 'nodeArgs', ['--max-semi-space-size=16']],
  [{ workers: 4 }, 'workers', 4],
  [{ workers: 'max' }, 'workers', 'max'],
  [{ workers: 1024 }, 'workers', 1024],
  [{ pollInterval: '500ms' }, 'pollInterval', 500],
  [{ pollInterval: 100 }, 'pollInterval', 100],
  [{ limits: { rss: '512mb' } }, 'limits.rss', 512 * MiB],
  [{ limits: { rss: 1_000_000 } }, 'limits.rss', 1_000_000],
  [{ limits: { rss: null } }, 'limits.rss', null],
  [{ limits: { heapUsed: '1.5gb' } }, 'limits.heapUsed', 1.5 * GiB],
  [{ limits: { native: '800MiB' } }, 'limits.native', 800 * MiB],
  [{ limits: { totalRss: '90%' } }, 'limits.totalRss', { fraction: 0.9 }],
  [{ limits: { totalRss: '4gb' } }, 'limits.totalRss', { bytes: 4 * GiB }],
  [{ limits: { totalRss: 2048 } }, 'limits.totalRss', { bytes: 2048 }],
  [{ limits: { maxAge: '6h' } }, 'limits.maxAge', 6 * 3_600_000],
  [{ limits: { maxRequests: 500000 } }, 'limits.maxRequests', 500000],
  [{ limits: { jitter: 0 } }, 'limits.jitter', 0],
  [{ limits: { jitter: 1 } }, 'limits.jitter', 1],
  [{ limits: { sustain: '10s' } }, 'limits.sustain', 10_000],
  [{ leak: false }, 'leak', false],
  [{ leak: true }, 'leak', { window: 300_000, minGrowth: MiB / 60, action: 'recycle', warmUp: 150_000 }],
  [{ leak: { warmUp: 0 } }, 'leak', { window: 300_000, minGrowth: MiB / 60, action: 'recycle', warmUp: 0 }],
  [{ leak: { window: '10m', minGrowth: '1mb/s', action: 'warn' } }, 'leak', { window: 600_000, minGrowth: MiB, action: 'warn', warmUp: 150_000 }],
  [{ leak: { action: 'warn' } }, 'leak.window', 300_000],
  [{ gcBeforeRecycle: false }, 'gcBeforeRecycle', false],
  [{ recycle: { readyTimeout: '1m', killTimeout: 0, maxConcurrent: 2 } }, 'recycle', { readyTimeout: 60_000, killTimeout: 0, maxConcurrent: 2, predictive: true }],
  [{ restart: { initialDelay: '1s', maxDelay: '1m', maxCrashes: 3, crashWindow: '5m' } }, 'restart', { initialDelay: 1000, maxDelay: 60_000, maxCrashes: 3, crashWindow: 300_000 }],
  [{ unresponsive: false }, 'unresponsive', false],
  [{ unresponsive: { timeout: '30s' } }, 'unresponsive', { timeout: 30_000 }],
  [{ metrics: false }, 'metrics', false],
  [{ metrics: { port: 0 } }, 'metrics', { host: '127.0.0.1', port: 0 }],
  [{ metrics: { host: '0.0.0.0', port: 9300 } }, 'metrics', { host: '0.0.0.0', port: 9300 }],
  [{ metrics: '0.0.0.0:9300' }, 'metrics', { host: '0.0.0.0', port: 9300 }],
  [{ metrics: ':9300' }, 'metrics', { host: '127.0.0.1', port: 9300 }],
  [{ metrics: '9300' }, 'metrics', { host: '127.0.0.1', port: 9300 }],
  [{ metrics: '[::1]:9300' }, 'metrics', { host: '::1', port: 9300 }],
  [{ log: { level: 'debug' } }, 'log', { level: 'debug', format: 'json' }],
  [{ log: { level: 'silent', format: 'pretty' } }, 'log', { level: 'silent', format: 'pretty' }],
  [{ diagnose: { dir: '/var/lib/api/diagnose' } }, 'diagnose', { dir: '/var/lib/api/diagnose', snapshots: true, snapshotTimeout: 60_000, keepSnapshots: false }],
  [{ diagnose: { snapshots: false, snapshotTimeout: '2m', keepSnapshots: true } }, 'diagnose', { dir: null, snapshots: false, snapshotTimeout: 120_000, keepSnapshots: true }],
  [{ diagnose: { dir: null } }, 'diagnose', { dir: null, snapshots: true, snapshotTimeout: 60_000, keepSnapshots: false }],
  [{ tui: true }, 'tui', true],
  [{ workers: 2 }, 'balance', null],
  [{ balance: 'round-robin' }, 'balance', 'round-robin'],
  [{ balance: 'sticky' }, 'balance', 'sticky'],
  [{ workers: 3 }, 'stickyHeader', null],
  [{ stickyHeader: 'X-Forwarded-For' }, 'stickyHeader', 'x-forwarded-for'],
];
for (const [raw, path, want] of good) {
  test(`good: ${JSON.stringify(raw)}`, (t) => {
    t.deepEqual(path.split('.').reduce((o, k) => o[k], validateConfig(raw, F)), want);
  });
}

// [config, the exact one-line message]
const bad = [
  [{ name: 'my app' }, 'name: expected 1-64 letters, digits, ".", "_" or "-", not starting with "." or "-", got "my app"'],
  [{ name: '.hidden' }, 'name: expected 1-64 letters, digits, ".", "_" or "-", not starting with "." or "-", got ".hidden"'],
  [{ name: '-x' }, 'name: expected 1-64 letters, digits, ".", "_" or "-", not starting with "." or "-", got "-x"'],
  [{ name: 'x'.repeat(65) }, `name: expected 1-64 letters, digits, ".", "_" or "-", not starting with "." or "-", got "${'x'.repeat(65)}"`],
  [{ name: 42 }, 'name: expected 1-64 letters, digits, ".", "_" or "-", not starting with "." or "-", got 42'],
  [{ script: '' }, 'script: expected a file path, got ""'],
  [{ args: '--port 3000' }, 'args: expected an array of strings, got "--port 3000"'],
  [{ args: ['a', {}] }, 'args[1]: expected a string, got {}'],
  [{ env: ['A=1'] }, 'env: expected an object of strings, got ["A=1"]'],
  [{ env: { A: null } }, 'env.A: expected a string, got null'],
  [{ nodeArgs: [true] }, 'nodeArgs[0]: expected a string, got true'],
  [{ workers: -1 }, 'workers: expected a positive integer or "max", got -1'],
  [{ workers: 0 }, 'workers: expected a positive integer or "max", got 0'],
  [{ workers: 2.5 }, 'workers: expected a positive integer or "max", got 2.5'],
  [{ workers: 'all' }, 'workers: expected a positive integer or "max", got "all"'],
  [{ workers: 2000 }, 'workers: expected a positive integer up to 1024 or "max", got 2000'],
  [{ balance: 'sticki' }, 'balance: expected "round-robin", "sticky" or "reuse-port", got "sticki"'],
  [{ stickyHeader: 'x forwarded' }, 'stickyHeader: expected a header name like "x-forwarded-for", or null, got "x forwarded"'],
  [{ pollInterval: '50ms' }, 'pollInterval: expected a duration of at least 100ms, got "50ms"'],
  [{ pollInterval: 'often' }, 'pollInterval: expected a duration like "10s", got "often"'],
  [{ limits: 'big' }, 'limits: expected an object, got "big"'],
  [{ limits: { rss: 'lots' } }, 'limits.rss: expected a size like "512mb", got "lots"'],
  [{ limits: { rss: 0 } }, 'limits.rss: expected a size above 0, got 0'],
  [{ limits: { heapUsed: -1 } }, 'limits.heapUsed: expected a size like "512mb", got -1'],
  [{ limits: { native: true } }, 'limits.native: expected a size like "512mb", got true'],
  [{ limits: { totalRss: '190%' } }, 'limits.totalRss: expected a size like "4gb" or a percentage like "90%", got "190%"'],
  [{ limits: { totalRss: 'most' } }, 'limits.totalRss: expected a size like "4gb" or a percentage like "90%", got "most"'],
  [{ limits: { maxAge: 'forever' } }, 'limits.maxAge: expected a duration like "10s", got "forever"'],
  [{ limits: { maxAge: 0 } }, 'limits.maxAge: expected a duration above 0, got 0'],
  [{ limits: { maxRequests: 1.5 } }, 'limits.maxRequests: expected a positive integer, got 1.5'],
  [{ limits: { jitter: 2 } }, 'limits.jitter: expected a number from 0 to 1, got 2'],
  [{ limits: { sustain: 'a bit' } }, 'limits.sustain: expected a duration like "10s", got "a bit"'],
  [{ limits: { rsss: '1gb' } }, 'limits.rsss: unknown key (did you mean "rss"?)'],
  [{ limits: { heapused: '1gb' } }, 'limits.heapused: unknown key (did you mean "heapUsed"?)'],
  [{ leak: 'on' }, 'leak: expected an object like { window, minGrowth, action } or false, got "on"'],
  [{ leak: { action: 'kill' } }, 'leak.action: expected "recycle" or "warn", got "kill"'],
  [{ leak: { minGrowth: '2mb' } }, 'leak.minGrowth: expected a rate like "2mb/min", got "2mb"'],
  [{ leak: { minGrowth: 0 } }, 'leak.minGrowth: expected a rate above 0, got 0'],
  [{ leak: { warmUp: 'soon' } }, 'leak.warmUp: expected a duration like "10s", got "soon"'],
  [{ leak: { window: '0s' } }, 'leak.window: expected a duration above 0, got "0s"'],
  [{ leak: { windw: '1m' } }, 'leak.windw: unknown key (did you mean "window"?)'],
  [{ gcBeforeRecycle: 'yes' }, 'gcBeforeRecycle: expected true or false, got "yes"'],
  [{ recycle: { maxConcurrent: 0 } }, 'recycle.maxConcurrent: expected a positive integer, got 0'],
  [{ recycle: { killTimeout: '-1s' } }, 'recycle.killTimeout: expected a duration like "10s", got "-1s"'],
  [{ recycle: { readyTimeout: 0 } }, 'recycle.readyTimeout: expected a duration above 0, got 0'],
  [{ restart: { maxCrashes: 0 } }, 'restart.maxCrashes: expected a positive integer, got 0'],
  [{ restart: { crashWindow: 'a while' } }, 'restart.crashWindow: expected a duration like "10s", got "a while"'],
  [{ restart: { initialDelay: '1m' } }, 'restart.maxDelay: expected a duration of at least restart.initialDelay (1m00s), got "30s"'],
  [{ restart: { initialDelay: '1s', maxDelay: '500ms' } }, 'restart.maxDelay: expected a duration of at least restart.initialDelay (1s), got "500ms"'],
  [{ unresponsive: 15 }, 'unresponsive: expected an object like { timeout } or false, got 15'],
  [{ unresponsive: { timeout: 'never' } }, 'unresponsive.timeout: expected a duration like "10s", got "never"'],
  [{ metrics: 'everywhere' }, 'metrics: expected an object like { host, port }, "host:port" or false, got "everywhere"'],
  [{ metrics: 'localhost:99999' }, 'metrics: expected an object like { host, port }, "host:port" or false, got "localhost:99999"'],
  [{ metrics: { port: 70000 } }, 'metrics.port: expected an integer from 0 to 65535, got 70000'],
  [{ metrics: { host: '' } }, 'metrics.host: expected a host name or IP address, got ""'],
  [{ metrics: { prot: 1 } }, 'metrics.prot: unknown key (did you mean "port"?)'],
  [{ log: { level: 'verbose' } }, 'log.level: expected one of fatal, error, warn, info, debug, trace, silent, got "verbose"'],
  [{ log: { format: 'text' } }, 'log.format: expected "json" or "pretty", got "text"'],
  [{ log: { colour: true } }, 'log.colour: unknown key (expected one of level, format)'],
  [{ diagnose: { dir: '' } }, 'diagnose.dir: expected a directory path, got ""'],
  [{ diagnose: { dri: '/tmp' } }, 'diagnose.dri: unknown key (did you mean "dir"?)'],
  [{ diagnose: { snapshots: 'yes' } }, 'diagnose.snapshots: expected true or false, got "yes"'],
  [{ diagnose: { snapshotTimeout: 0 } }, 'diagnose.snapshotTimeout: expected a duration above 0, got 0'],
  [{ tui: 1 }, 'tui: expected true or false, got 1'],
  [{ instances: 4 }, 'instances: unknown key (did you mean "workers"?)'],
  [{ maxRss: '1gb' }, 'maxRss: unknown key (did you mean "limits.rss"?)'],
  [{ wrokers: 4 }, 'wrokers: unknown key (did you mean "workers"?)'],
  [42, 'export default: expected an object or a function returning one, got 42'],
  [null, 'export default: expected an object or a function returning one, got null'],
  [['a'], 'export default: expected an object or a function returning one, got ["a"]'],
];
for (const [raw, message] of bad) {
  test(`bad: ${JSON.stringify(raw).slice(0, 80)}`, (t) => {
    const err = errorOf(raw);
    t.is(err.code, 'NODESUP_ERR_CONFIG');
    t.is(err.exitCode, 2);
    t.is(err.message, `${F}: ${message}`);
    t.false(err.message.includes('\n'));
  });
}

test('an unknown key with no close match lists the known ones', (t) => {
  t.is(errorOf({ colour: 'red' }).message,
    `${F}: colour: unknown key (expected one of name, script, args, env, nodeArgs, workers, pollInterval, limits, leak, gcBeforeRecycle, recycle, restart, unresponsive, metrics, log, diagnose, tui, balance, stickyHeader)`);
});

test('an unknown key is reported before a bad value', (t) => {
  t.is(errorOf({ limits: { rss: 'lots', jitterr: 1 } }).message, `${F}: limits.jitterr: unknown key (did you mean "jitter"?)`);
});

test('only the first problem is reported, on one line', (t) => {
  const err = errorOf({ workers: -1, pollInterval: 'x', limits: { rss: 'lots' } });
  t.is(err.message, `${F}: workers: expected a positive integer or "max", got -1`);
});

test('a long value is shortened in the message', (t) => {
  const err = errorOf({ args: 'x'.repeat(100) });
  t.is(err.message, `${F}: args: expected an array of strings, got "${'x'.repeat(100)}"`);
  const obj = errorOf({ env: Array.from({ length: 40 }, (_, i) => i) });
  t.true(obj.message.endsWith('...'));
  t.false(obj.message.includes('\n'));
});

test('a function as `where` names the flag instead of file and key', (t) => {
  const flag = (key) => ({ 'limits.rss': '--max-rss', metrics: '--metrics' })[key] ?? `--${key}`;
  t.is(errorOf({ limits: { rss: 'lots' } }, flag).message, '--max-rss: expected a size like "512mb", got "lots"');
  t.is(errorOf({ metrics: 'nope' }, flag).message, '--metrics: expected an object like { host, port }, "host:port" or false, got "nope"');
});
