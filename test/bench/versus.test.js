import test from 'ava';
import { verdict } from '../../bench/lib/versus.js';

const of = (lo, hi) => ({ ratios: [lo, hi], ci: [(lo + hi) / 2, lo, hi] });

test('a ratio where higher is better: faster, not slower, or slower by where its interval lies', (t) => {
  t.regex(verdict(of(1.02, 1.10), { better: 'higher' }), /^faster/);
  t.regex(verdict(of(0.97, 1.03), { better: 'higher' }), /^not slower/);
  t.regex(verdict(of(0.90, 0.98), { better: 'higher' }), /^slower/);
});

test('a ratio where lower is better: lower, not higher, or higher by where its interval lies', (t) => {
  t.regex(verdict(of(0.65, 0.82), { better: 'lower' }), /^lower \(the whole interval is below 1\)/);
  t.regex(verdict(of(0.95, 1.05), { better: 'lower' }), /^not higher/);
  t.regex(verdict(of(1.02, 1.20), { better: 'lower' }), /^higher/);
  t.regex(verdict({ ratios: [0.9], ci: [0.9, 0.9, 0.9] }, { better: 'lower' }), /^no verdict/);
});
