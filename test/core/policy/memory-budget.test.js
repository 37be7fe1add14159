// The workers' share of the container: the default total limit where the config sets no memory
// limit, and the memory.oom.group advice that shares it out per worker.
import test from 'ava';
import { BUDGET, HEAP_SNAPSHOT_BUDGET, workersBudget, defaultTotalLimit, noMemoryLimit } from '../../../src/core/policy/memory-budget.js';
import { oomGroupAdvice } from '../../../src/core/policy/fit.js';
import { defaultConfig } from '../../../src/config/validate.js';
import { adviceText } from '../../../src/report/advice-words.js';
import { messageFor } from '../../../src/report/words.js';
import { EVENTS } from '../../../src/constants.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const NONE = defaultConfig().limits;
const primaryRss = 70 * MiB;

test('the default limits are no memory limit at all', (t) => {
  t.true(noMemoryLimit(NONE));
  for (const key of ['rss', 'heapUsed', 'native']) t.false(noMemoryLimit({ ...NONE, [key]: 300 * MiB }), key);
  t.false(noMemoryLimit({ ...NONE, totalRss: { fraction: 0.9 } }));
});

test('the budget: the container limit less the primary, one replacement, a share for the kernel and growth, and the snapshot budget', (t) => {
  const b = workersBudget({ cgroupLimit: 512 * MiB, primaryRss });
  const margin = BUDGET.replacement + Math.ceil(BUDGET.share * 512 * MiB);
  t.deepEqual(b, { bytes: 512 * MiB - primaryRss - margin - HEAP_SNAPSHOT_BUDGET, cgroupLimit: 512 * MiB, primaryRss, margin, snapshotBudget: HEAP_SNAPSHOT_BUDGET });
  t.is(workersBudget({ cgroupLimit: null, primaryRss }), null, 'no container limit: no budget');
  t.is(workersBudget({ cgroupLimit: 512 * MiB, primaryRss: null }).primaryRss, BUDGET.replacement, 'an unmeasured primary counts as a fresh worker');
});

test('a flat 90 % leaves a 512 MiB pod less than the primary takes; the derived default leaves it, a replacement and a margin', (t) => {
  const limit = 512 * MiB;
  t.true(limit - 0.9 * limit < primaryRss, '90 % would meet the kernel first');
  const d = defaultTotalLimit(NONE, { cgroupLimit: limit, primaryRss, workers: 2 });
  t.true(d.bytes + primaryRss + BUDGET.replacement < limit, 'workers at the default, the primary and a replacement starting fit');
  // Larger pods keep a share, not a fixed amount: the default grows toward the limit, never to it.
  const big = defaultTotalLimit(NONE, { cgroupLimit: 8 * GiB, primaryRss, workers: 8 });
  t.true(big.bytes / (8 * GiB) > 0.9 && big.bytes / (8 * GiB) < 0.95, String(big.bytes / (8 * GiB)));
});

test('the default applies only where the config sets no memory limit and the container has one', (t) => {
  const o = { cgroupLimit: GiB, primaryRss, workers: 2 };
  t.truthy(defaultTotalLimit(NONE, o));
  t.is(defaultTotalLimit({ ...NONE, rss: 400 * MiB }, o), null, 'an explicit limit wins');
  t.is(defaultTotalLimit({ ...NONE, totalRss: { fraction: 0.9 } }, o), null);
  t.is(defaultTotalLimit(NONE, { ...o, cgroupLimit: null }), null, 'no container limit: the host is not a pod');
});

test('no default where the budget cannot hold a fresh worker each: it would recycle a healthy app in a loop', (t) => {
  const d = defaultTotalLimit(NONE, { cgroupLimit: 256 * MiB, primaryRss, workers: 2 });
  t.like(d, { bytes: null, cgroupLimit: 256 * MiB, workers: 2 });
  t.truthy(defaultTotalLimit(NONE, { cgroupLimit: 256 * MiB, primaryRss, workers: 1 }).bytes);
});

test('config.default says the limit, its parts and how to choose; or that there is no room', (t) => {
  const d = defaultTotalLimit(NONE, { cgroupLimit: 512 * MiB, primaryRss, workers: 2 });
  const fields = { event: EVENTS.CONFIG_DEFAULT, key: 'limits.totalRss', value: d.bytes, cgroupMemoryLimit: d.cgroupLimit, primaryRss: d.primaryRss, margin: d.margin, snapshotBudget: 0, workers: 2 };
  t.regex(messageFor(fields), /^no memory limit set: the workers are recycled past \d+ MiB together \(the container's 512 MiB less the primary's 70(\.0)? MiB and a [\d.]+ MiB margin\), before the kernel's OOM killer; set limits\.totalRss or limits\.rss to choose$/);
  t.regex(messageFor({ ...fields, value: null }), /leaves no room for 2 workers: no default limit; set limits\.rss, or run fewer workers$/);
  t.is(messageFor({ event: EVENTS.CONFIG_DEFAULT, key: 'balance', value: 'sticky', dependency: 'socket.io', packageJson: '/srv/app/package.json' }),
    "balance: 'sticky', since /srv/app/package.json depends on socket.io (long-polling needs each client on one worker); set balance: 'round-robin' to choose");
});

test('oom-group: said where memory.oom.group is 1 and no limits.rss, or one too large, keeps a worker from taking the pod', (t) => {
  const o = { oomGroup: true, cgroupLimit: 512 * MiB, primaryRss, workers: 2 };
  const share = Math.floor(workersBudget(o).bytes / 2);
  const unset = oomGroupAdvice({ ...o, rssLimit: null });
  t.deepEqual(unset, { code: 'oom-group', cgroupLimit: 512 * MiB, workers: 2, rssLimit: null, share });
  t.regex(adviceText(unset), /^memory\.oom\.group: a worker at the 512 MiB limit takes the whole pod; set limits\.rss ≤ \d+ MiB to recycle it first$/);
  t.regex(adviceText(oomGroupAdvice({ ...o, rssLimit: 400 * MiB })), /; limits\.rss 400 MiB is too high: set ≤ \d+ MiB$/);
  t.is(oomGroupAdvice({ ...o, rssLimit: share }), null, 'a limits.rss within the share: nothing to say');
  t.is(oomGroupAdvice({ ...o, oomGroup: false, rssLimit: null }), null, 'the kernel kills one process: not this advice');
  t.is(oomGroupAdvice({ ...o, oomGroup: null, rssLimit: null }), null, 'unknown (cgroup v1, no file): no advice');
  t.is(oomGroupAdvice({ ...o, cgroupLimit: null, rssLimit: null }), null);
});

test('oom-group: every message fits 120 characters, even with the largest numbers', (t) => {
  const o = { oomGroup: true, cgroupLimit: 1023 * GiB, primaryRss, workers: 1024 };
  for (const rssLimit of [null, 1000 * GiB]) {
    const text = adviceText(oomGroupAdvice({ ...o, rssLimit }));
    t.true(text.length <= 120, `${text.length}: ${text}`);
  }
});
