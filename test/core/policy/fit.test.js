import test from 'ava';
import { overcommit, oomAdvice } from '../../../src/core/policy/fit.js';
import { adviceText } from '../../../src/report/advice-words.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

test('overcommit: workers × limits.rss over the container limit, with the share to set', (t) => {
  const a = overcommit({ workers: 4, cgroupLimit: GiB, rssLimit: 512 * MiB, heapLimit: 200 * MiB, nativeBaseline: 30 * MiB });
  t.like(a, { code: 'overcommit', need: 2 * GiB, limit: GiB });
  t.regex(adviceText(a), /4 workers × limits\.rss 512 MiB > container limit 1(\.0)? GiB: set limits\.rss ≤ 230/);
});

test('overcommit: with no limits.rss, workers × (V8 heap limit + native baseline), with a --max-old-space-size that fits', (t) => {
  const a = overcommit({ workers: 4, cgroupLimit: GiB, rssLimit: null, heapLimit: 500 * MiB, nativeBaseline: 40 * MiB });
  t.is(a.need, 4 * 540 * MiB);
  t.regex(adviceText(a), /--max-old-space-size=190/); // (1 GiB × 0.9 / 4 − 40 MiB) = 190.4 MiB
  t.regex(adviceText(a), /limits\.totalRss/);
  t.notRegex(adviceText(overcommit({ workers: 4, cgroupLimit: GiB, rssLimit: null, heapLimit: 500 * MiB, nativeBaseline: 40 * MiB, totalRss: { fraction: 0.9 } })), /totalRss/,
    'totalRss already set: not suggested again');
});

test('overcommit: nothing when they fit or when the container limit or heap limit is unknown', (t) => {
  t.is(overcommit({ workers: 2, cgroupLimit: GiB, rssLimit: 400 * MiB, heapLimit: 300 * MiB, nativeBaseline: 50 * MiB }), null);
  t.is(overcommit({ workers: 8, cgroupLimit: null, rssLimit: GiB, heapLimit: GiB, nativeBaseline: null }), null);
  t.is(overcommit({ workers: 8, cgroupLimit: GiB, rssLimit: null, heapLimit: null, nativeBaseline: null }), null);
});

test('oomAdvice: names the rss limit to set, or the fleet when each limit already fits', (t) => {
  t.regex(adviceText(oomAdvice({ slot: 1, lastRss: 300 * MiB, rssLimit: null, cgroupLimit: GiB, workers: 2 })), /slot 1 .*at 300 MiB.*set limits\.rss ≤ 461 MiB/);
  t.regex(adviceText(oomAdvice({ slot: 0, lastRss: null, rssLimit: 200 * MiB, cgroupLimit: GiB, workers: 2 })), /together overflow it; set limits\.totalRss/);
  t.regex(adviceText(oomAdvice({ slot: 0, lastRss: null, rssLimit: null, cgroupLimit: null, workers: 2 })), /killed by the kernel's OOM killer: set limits\.rss/);
});
