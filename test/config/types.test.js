// The Config typedef (src/types.js) is the shape code reads; the schema (src/config/validate.js)
// is the shape that is validated and defaulted. One idea, two spellings: this keeps them the same.
import test from 'ava';
import fs from 'node:fs';
import { defaultConfig } from '../../src/config/validate.js';

const TYPES = fs.readFileSync(new URL('../../src/types.js', import.meta.url), 'utf8');

/** The @property lines of one typedef: name → type text. */
function typedef(name) {
  const start = TYPES.indexOf(`@typedef {object} ${name}\n`);
  if (start < 0) return null;
  const end = TYPES.indexOf('*/', start);
  const props = {};
  for (const m of TYPES.slice(start, end).matchAll(/@property \{(.+?)\} (\w+)/g)) props[m[2]] = m[1];
  return props;
}

// Sections typed by a typedef of their own rather than inline.
const NAMED = { limits: 'Limits', leak: 'LeakConfig' };

test('the typedef parser reads the Config typedef', (t) => {
  const config = typedef('Config');
  t.truthy(config);
  t.is(config.workers, 'number');
});

test('every key of the schema is a property of the Config typedef, nested keys included', (t) => {
  const config = typedef('Config');
  const missing = [];
  for (const [key, value] of Object.entries(defaultConfig())) {
    if (!(key in config)) { missing.push(key); continue; }
    if (!value || typeof value !== 'object' || Array.isArray(value) || key === 'env') continue;
    const named = NAMED[key] ? typedef(NAMED[key]) : null;
    for (const sub of Object.keys(value)) {
      const found = named ? sub in named : new RegExp(`[{ ,]${sub}\\??:`).test(config[key]);
      if (!found) missing.push(`${key}.${sub}`);
    }
  }
  t.deepEqual(missing, []);
});

test('the Config typedef has no property the schema does not know (but what loading adds)', (t) => {
  const known = new Set([...Object.keys(defaultConfig()), 'name', 'script', 'configFile', 'balanceFrom']);
  t.deepEqual(Object.keys(typedef('Config')).filter((k) => !known.has(k)), []);
});
