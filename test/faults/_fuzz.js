// Generators for the config fuzz tests: seeded, so a failing case is replayed from its seed.
import { prng } from './_helpers.js';

export const SECTIONS = {
  '': ['name', 'script', 'args', 'env', 'nodeArgs', 'workers', 'pollInterval', 'limits', 'leak', 'gcBeforeRecycle', 'recycle', 'restart', 'unresponsive', 'metrics', 'log', 'tui', 'balance', 'stickyHeader', 'diagnose'],
  limits: ['rss', 'heapUsed', 'native', 'totalRss', 'maxAge', 'maxRequests', 'jitter', 'sustain'],
  leak: ['window', 'minGrowth', 'action', 'warmUp'],
  recycle: ['readyTimeout', 'killTimeout', 'maxConcurrent', 'predictive'],
  restart: ['initialDelay', 'maxDelay', 'maxCrashes', 'crashWindow'],
  unresponsive: ['timeout'],
  metrics: ['host', 'port'],
  log: ['level', 'format'],
  diagnose: ['dir', 'snapshots', 'snapshotTimeout', 'keepSnapshots'],
};

const HUGE = '9'.repeat(400);
// Per kind: [values a user might mean, values that are wrong]. The first list includes the edges
// (0, "25d", 400 digits) on purpose.
const KIND = {
  size: [['512mb', '1.5gb', '800MiB', '1kb', '.5gb', ' 10 mb ', '10 MB', '1tb', `${HUGE}mb`, 1, 1.5, 2 ** 53, 1e308], ['0', '0mb', '-1mb', '1e3mb', '5pb', 0, -1, 'lots']],
  duration: [['500ms', '10s', '6h', '1m', '2min', '1d', '25d', '30d', '.5s', '10 sec', `${HUGE}s`, 100, 1.5, 2 ** 31, 1e308], ['0', '0ms', '-1s', '1e3s', '1 fortnight', 0, -5, 'soon']],
  rate: [['2mb/min', '10kb/s', '1mb/1h', `${HUGE}mb/s`, 5], ['0mb/min', 'mb/min', '2mb/0s', '2mb/', 0]],
  totalRss: [['90%', '100%', '4gb', '50 %'], ['0%', '150%', '-10%', '%', '0']],
  count: [[1, 2, 10, 2 ** 53], [0, -1, 1.5, '3', 1e308]],
  fraction: [[0, 0.1, 1], [1.5, -0.1, '0.1']],
  name: [['api', 'my-app_2.v1', '_x', 'a'.repeat(64)], ['.hidden', '-dash', 'a/b', 'a'.repeat(65), '', 'x y', 'ünï']],
  workers: [['max', 1, 2, 1024], [1025, 0, -1, 1.5, '2', 'MAX']],
  hostport: [['127.0.0.1:9209', 'localhost:0', ':9209', '9209', '[::1]:9209', false], ['[::1]:99999', 'host:', '::', '', 'false']],
  host: [['127.0.0.1', '::1', 'localhost'], ['', '  ']],
  port: [[0, 9209, 65535], [65536, -1, 1.5, '9209']],
  level: [['info', 'debug', 'warn', 'silent'], ['INFO', 'verbose']],
  format: [['json', 'pretty'], ['xml']],
  action: [['recycle', 'warn'], ['kill', false]],
  bool: [[true, false], ['true', 0, 1]],
  balance: [['round-robin', 'sticky', 'reuse-port'], ['least', 'Sticky', 'reuseport', true]],
  header: [[null, 'x-forwarded-for', 'X-Real-IP'], ['x forwarded', '', 1]],
  strings: [[[], ['--x'], ['a', 'b'], ['a', 1]], [[null], 'a', [['nested']]]],
  script: [['app.js', 'missing.js'], ['.', '', ' ', 'a\nb.js']],
};

const KEY_KIND = {
  name: 'name', script: 'script', args: 'strings', nodeArgs: 'strings', workers: 'workers', pollInterval: 'duration',
  gcBeforeRecycle: 'bool', tui: 'bool', balance: 'balance', stickyHeader: 'header', rss: 'size', heapUsed: 'size', native: 'size', totalRss: 'totalRss', maxAge: 'duration',
  maxRequests: 'count', jitter: 'fraction', sustain: 'duration', window: 'duration', minGrowth: 'rate', action: 'action',
  readyTimeout: 'duration', killTimeout: 'duration', maxConcurrent: 'count', predictive: 'bool', initialDelay: 'duration', maxDelay: 'duration',
  maxCrashes: 'count', crashWindow: 'duration', timeout: 'duration', host: 'host', port: 'port', level: 'level', format: 'format',
  warmUp: 'duration', snapshots: 'bool', snapshotTimeout: 'duration', keepSnapshots: 'bool',
};

const ODD_KEYS = ['instances', 'max_memory_restart', 'maxRss', 'kill_timeout', 'level', '', ' ', 'a.b', 'x\ny', '💥',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

/** A config-like value generator; `forFile` leaves out what JS source cannot spell (cycles). */
export function generator(seed, { forFile = false } = {}) {
  const rnd = prng(seed);
  // How hostile this case is: the chance of each key being odd and each value being wrong.
  const hostility = rnd.pick([0, 0, 0.05, 0.2, 0.5]);
  const generic = () => {
    const list = [
      undefined, null, true, false, 0, -0, 1, -1, 1.5, NaN, Infinity, -Infinity, '', ' ', 'abc', 'true', 'false',
      'line1\nline2', '\u0000', 'a'.repeat(5000), [], [1, 'a', null], {}, { a: 1 }, { rss: '1mb' }, Symbol('s'), 10n,
      () => 1, new Date(0), /re/, new Map([[1, 2]]), Object.assign(Object.create(null), { rss: '1mb' }),
    ];
    if (!forFile) {
      const cycle = { a: 1 };
      cycle.self = cycle;
      list.push(cycle);
    }
    return rnd.pick(list);
  };
  const typo = (key) => {
    if (!key) return 'x';
    const i = rnd.int(key.length);
    switch (rnd.int(4)) {
      case 0: return key.slice(0, i) + key.slice(i + 1);
      case 1: return key.slice(0, i) + key[i] + key.slice(i);
      case 2: return key.toLowerCase() === key ? key.toUpperCase() : key.toLowerCase();
      default: return i + 1 < key.length ? key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2) : `${key}s`;
    }
  };
  const keyFor = (section) => {
    if (!rnd.chance(hostility)) return rnd.pick(SECTIONS[section]);
    return rnd.chance(0.5) ? typo(rnd.pick(SECTIONS[section])) : rnd.pick(ODD_KEYS);
  };
  const valueFor = (key, depth) => {
    if (Object.hasOwn(SECTIONS, key) && key !== '' && depth < 2 && rnd.chance(0.75)) return section(key, depth + 1);
    const wrong = rnd.chance(hostility);
    if (key === 'metrics' && rnd.chance(0.5)) return rnd.pick(KIND.hostport[wrong ? 1 : 0]);
    if (key === 'env' && !wrong) return env();
    const kind = Object.hasOwn(KEY_KIND, key) ? KEY_KIND[key] : undefined;
    if (kind && (!wrong || rnd.chance(0.5))) return rnd.pick(KIND[kind][wrong ? 1 : 0]);
    return generic();
  };
  const env = () => {
    const out = {};
    for (let i = rnd.int(4); i > 0; i--) {
      const odd = rnd.chance(hostility);
      const key = rnd.pick(odd ? ['', 'A\nB', '__proto__', 'toString'] : ['PORT', 'NODE_ENV', 'A_B', 'x']);
      const value = rnd.pick(rnd.chance(hostility) ? [null, {}, [], Symbol('v')] : ['3000', 3000, true, 1.5, 'v\nw']);
      Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true });
    }
    return out;
  };
  const section = (name, depth = 0) => {
    const out = {};
    for (let i = rnd.int(name === '' ? 5 : 4); i >= 0; i--) {
      const key = keyFor(name);
      // defineProperty: a generated "__proto__" key is an own key, as JSON.parse would make it.
      Object.defineProperty(out, key, { value: valueFor(key, depth), enumerable: true, configurable: true, writable: true });
    }
    return out;
  };
  return { rnd, config: () => section(''), value: generic };
}

/** JS source for a generated value (for config files). */
export function toSource(v) {
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean' || v === null) return String(v);
  if (typeof v === 'symbol') return `Symbol(${JSON.stringify(v.description)})`;
  if (typeof v === 'function') return '() => 1';
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (v instanceof RegExp) return String(v);
  if (v instanceof Map) return 'new Map([[1, 2]])';
  if (Array.isArray(v)) return `[${v.map(toSource).join(', ')}]`;
  const body = Object.entries(v).map(([k, x]) => `[${JSON.stringify(k)}]: ${toSource(x)}`).join(', ');
  return Object.getPrototypeOf(v) === null ? `Object.assign(Object.create(null), { ${body} })` : `{ ${body} }`;
}
