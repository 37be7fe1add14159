// Fuzzed configurations, in-process: a few hundred generated configs through validateConfig,
// generated flags and config files through loadConfig. Every case ends as either a normalised
// config or a NodesupError with exit code 2 whose message is one line, never another exception.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { validateConfig, LOG_LEVELS, MAX_WORKERS } from '../../src/config/validate.js';
import { loadConfig, flagsToConfig } from '../../src/config/load.js';
import { NodesupError } from '../../src/errors.js';
import { scratch } from '../helpers/cli.js';
import { generator, toSource, SECTIONS } from './_fuzz.js';
import { prng } from './_helpers.js';

const WHERE = 'fuzz.config.js';
const CASES = 400;
const MAX_TIMER_MS = 2 ** 31 - 1; // setTimeout turns anything longer into 1 ms
const show = (v) => inspect(v, { depth: 4, breakLength: Infinity, maxStringLength: 80 });

// Every case once: [seed, raw config, outcome].
const outcomes = Array.from({ length: CASES }, (_, i) => {
  const seed = 1000 + i;
  const raw = generator(seed).config();
  try {
    return { seed, raw, config: validateConfig(raw, WHERE) };
  } catch (error) {
    return { seed, raw, error };
  }
});

function report(t, bad, what) {
  t.deepEqual(bad.slice(0, 5).map((o) => `seed ${o.seed}: ${show(o.raw)} -> ${o.why}`), [], `${bad.length} of ${CASES} cases ${what}`);
}

test('the generator covers both outcomes', (t) => {
  const accepted = outcomes.filter((o) => o.config).length;
  t.log(`${accepted} accepted, ${CASES - accepted} refused`);
  t.true(accepted >= CASES * 0.05, 'some generated configs are valid');
  t.true(CASES - accepted >= CASES * 0.5, 'most are not');
});

test('validateConfig never throws anything but a NodesupError with exit code 2', (t) => {
  const bad = outcomes.filter((o) => o.error && !(o.error instanceof NodesupError && o.error.exitCode === 2))
    .map((o) => ({ ...o, why: o.error?.stack ?? String(o.error) }));
  report(t, bad, 'threw something else');
});

// One line, no stack, naming where the problem is.
function messageProblem(err, where, { internals = true } = {}) {
  const msg = err.message;
  if (typeof msg !== 'string' || msg === '') return 'no message';
  if (/[\r\n\u2028\u2029]/.test(msg)) return `not one line: ${JSON.stringify(msg)}`;
  if (/\bat .+:\d+:\d+/.test(msg)) return `a stack in the message: ${msg}`;
  if (!msg.startsWith(`${where}: `) && !msg.startsWith('script: ')) return `does not start with "${where}: ": ${msg}`;
  if (msg.length > 1000) return `${msg.length} characters long`;
  if (internals && /native code|\[object Object\]/.test(msg)) return `shows JS internals: ${msg}`;
  return null;
}

// Found by this fuzzer, now guarded: a key named like an Object.prototype member ("toString")
// once matched the alias table and printed a function as the suggestion; a key holding a newline
// made a two-line message; a 5000-character value made a 5 KB line.
test('every refusal is one line, no stack, names the file, and shows no JS internals', (t) => {
  const bad = outcomes.filter((o) => o.error instanceof NodesupError)
    .map((o) => ({ ...o, why: messageProblem(o.error, WHERE) })).filter((o) => o.why);
  report(t, bad, 'have a bad message');
});

// What a normalised config looks like; returns what is wrong, or null.
function configProblem(c) {
  const numbers = [];
  const walk = (v, key) => {
    if (typeof v === 'number') numbers.push([key, v]);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, key ? `${key}.${k}` : k);
  };
  walk(c, '');
  const nonFinite = numbers.find(([, v]) => !Number.isFinite(v));
  if (nonFinite) return `${nonFinite[0]} is ${nonFinite[1]}`;
  const timers = { pollInterval: c.pollInterval, 'recycle.readyTimeout': c.recycle.readyTimeout, 'recycle.killTimeout': c.recycle.killTimeout,
    'restart.initialDelay': c.restart.initialDelay, 'restart.maxDelay': c.restart.maxDelay };
  const overflow = Object.entries(timers).find(([, v]) => v > MAX_TIMER_MS);
  if (overflow) return `${overflow[0]} is ${overflow[1]} ms, more than a timer can wait (setTimeout makes it 1 ms)`;
  if (!(c.pollInterval >= 100)) return `pollInterval ${c.pollInterval}`;
  if (!(c.workers === 'max' || (Number.isInteger(c.workers) && c.workers >= 1 && c.workers <= MAX_WORKERS))) return `workers ${c.workers}`;
  if (!LOG_LEVELS.includes(c.log.level) || !['json', 'pretty'].includes(c.log.format)) return `log ${show(c.log)}`;
  if (c.metrics !== false && !(typeof c.metrics.host === 'string' && Number.isInteger(c.metrics.port))) return `metrics ${show(c.metrics)}`;
  for (const k of ['rss', 'heapUsed', 'native', 'maxAge', 'maxRequests']) {
    if (c.limits[k] !== null && !(c.limits[k] > 0)) return `limits.${k} ${c.limits[k]}`;
  }
  if (!Object.values(c.env).every((v) => typeof v === 'string')) return `env ${show(c.env)}`;
  if (![...c.args, ...c.nodeArgs].every((v) => typeof v === 'string')) return 'args';
  for (const [section, keys] of Object.entries(SECTIONS)) {
    const obj = section ? c[section] : c;
    if (obj === false) continue;
    const extra = Object.keys(obj).filter((k) => !keys.includes(k));
    if (extra.length) return `unknown keys kept: ${section}.${extra}`;
  }
  return null;
}

// Found by this fuzzer, now guarded: "999…9mb" parsed to Infinity, and a duration over 2^31-1 ms
// ("30d") was accepted for a timer key, which Node's setTimeout turns into 1 ms (a readyTimeout of
// 30 days killed every worker as it forked).
test('every accepted config is normalised: finite numbers, timer durations a timer can wait, no stray keys', (t) => {
  const bad = outcomes.filter((o) => o.config).map((o) => ({ ...o, why: configProblem(o.config) })).filter((o) => o.why);
  report(t, bad, 'were accepted but not normalised');
});

test('validation does not depend on the order it runs in: the same input, the same outcome', (t) => {
  for (const o of outcomes.slice(0, 100)) {
    const raw = generator(o.seed).config();
    let again;
    try {
      again = { config: validateConfig(raw, WHERE) };
    } catch (error) {
      again = { error };
    }
    t.is(again.error?.message, o.error?.message, `seed ${o.seed}`);
    if (o.config) t.deepEqual(again.config, o.config, `seed ${o.seed}`);
  }
});

// Flags as yargs hands them over: strings, a string array when repeated, a boolean for --tui.
const FLAG_VALUES = ['512mb', '1.5gb', 'lots', '-1', '0', '', ' ', '2', 'max', '10s', '500ms', 'soon', '30d', `${'9'.repeat(400)}s`,
  'false', 'true', '127.0.0.1:0', ':0', 'here', 'json', 'pretty', 'xml', 'info', 'LOUD', 'api', 'a/b', '.x', 'a\nb', '\u0000'];
const FLAGS = ['workers', 'max-rss', 'max-heap', 'poll-interval', 'kill-timeout', 'metrics', 'log-level', 'log-format', 'name', 'tui'];

test('fuzzed flags through loadConfig: a config or a one-line NodesupError naming the flag', async (t) => {
  const cwd = scratch();
  t.teardown(() => fs.rmSync(cwd, { recursive: true, force: true }));
  fs.writeFileSync(path.join(cwd, 'app.js'), '');
  const rnd = prng(77);
  const bad = [];
  for (let i = 0; i < 200; i++) {
    const argv = {};
    for (let n = 1 + rnd.int(3); n > 0; n--) {
      const flag = rnd.pick(FLAGS);
      argv[flag] = flag === 'tui' ? rnd.pick([true, false, [true, true]])
        : rnd.chance(0.1) ? [rnd.pick(FLAG_VALUES), rnd.pick(FLAG_VALUES)] : rnd.pick(FLAG_VALUES);
    }
    try {
      await loadConfig({ cwd, flags: flagsToConfig(argv), script: 'app.js' });
    } catch (err) {
      const ok = err instanceof NodesupError && err.exitCode === 2 && !/[\r\n]/.test(err.message) && /^--[a-z-]+: /.test(err.message);
      if (!ok) bad.push(`${show(argv)} -> ${err?.stack ?? err}`);
    }
  }
  t.deepEqual(bad.slice(0, 5), [], `${bad.length} of 200 flag sets`);
});

// Config files that do not parse, throw, or export the wrong thing, plus generated ones.
const BROKEN = [
  ['supervisor.config.mjs', 'export default { limits: { rss: "1mb" } ;'],
  ['supervisor.config.mjs', 'throw new Error("no\\nway");'],
  ['supervisor.config.mjs', 'export default async () => { throw new TypeError("async\\nboom"); };'],
  ['supervisor.config.mjs', 'export default () => null;'],
  ['supervisor.config.mjs', 'export default Promise.resolve({});'],
  ['supervisor.config.mjs', 'export default class {};'],
  ['supervisor.config.mjs', 'export const workers = 2;'],
  ['supervisor.config.mjs', 'import "./nope.mjs"; export default {};'],
  ['supervisor.config.mjs', 'import x from "nodesup-not-a-package"; export default x;'],
  ['supervisor.config.mjs', 'export default JSON.parse("{");'],
  ['supervisor.config.mjs', '\u0000\u0001'],
  ['supervisor.config.mjs', 'export default [];'],
  ['supervisor.config.mjs', 'export default { workers: 2 }; export default {};'],
  ['supervisor.config.cjs', 'module.exports = 42;'],
  ['supervisor.config.cjs', 'module.exports = { limits: { rss: "lots" } };'],
  ['supervisor.config.cjs', 'exports.default = { __esModule: true, default: { workers: -1 } };'],
  ['supervisor.config.cjs', 'require("./missing.cjs");'],
  ['supervisor.config.js', 'export default { workers: 2 };'],
  ['supervisor.config.js', 'process.exitCode = 0; module.exports = () => { throw null; };'],
  ['supervisor.config.js', 'module.exports = { get workers() { return 2; } };'],
];

test('broken and generated config files through loadConfig: a config or a one-line NodesupError', async (t) => {
  const gen = generator(4242, { forFile: true });
  const files = [...BROKEN, ...Array.from({ length: 30 }, () => ['supervisor.config.mjs', `export default ${toSource(gen.config())};\n`])];
  const bad = [];
  let refused = 0;
  for (const [name, source] of files) {
    const cwd = scratch();
    t.teardown(() => fs.rmSync(cwd, { recursive: true, force: true }));
    fs.writeFileSync(path.join(cwd, 'app.js'), '');
    fs.writeFileSync(path.join(cwd, name), source);
    try {
      await loadConfig({ cwd, script: 'app.js' });
    } catch (err) {
      refused++;
      const why = !(err instanceof NodesupError) ? `not a NodesupError: ${err?.stack ?? err}`
        : err.exitCode !== 2 ? `exit code ${err.exitCode}` : messageProblem(err, name, { internals: false }); // internals: see the failing test above
      if (why) bad.push(`${name} ${JSON.stringify(source.slice(0, 120))} -> ${why}`);
    }
  }
  t.true(refused >= BROKEN.length, 'the broken ones were refused');
  t.deepEqual(bad.slice(0, 5), [], `${bad.length} of ${files.length} files`);
});

// Found by this fuzzer, now guarded: a getter that throws (`get port() { return
// process.env.PORT.trim() }` with PORT unset) escaped loadConfig as a TypeError with a stack.
test('a config whose getter throws is a one-line load error, exit 2', async (t) => {
  const cwd = scratch();
  t.teardown(() => fs.rmSync(cwd, { recursive: true, force: true }));
  fs.writeFileSync(path.join(cwd, 'app.js'), '');
  fs.writeFileSync(path.join(cwd, 'supervisor.config.mjs'), 'export default { get workers() { return process.env.NODESUP_FUZZ_UNSET.trim(); } };\n');
  const err = await t.throwsAsync(loadConfig({ cwd, script: 'app.js' }));
  t.true(err instanceof NodesupError, `got ${err?.stack}`);
  t.is(err.exitCode, 2);
  t.regex(err.message, /^supervisor\.config\.mjs: cannot load: /);
});
