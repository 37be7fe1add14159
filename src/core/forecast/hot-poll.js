// Sampling tightens for a worker rising toward its rss limit: at a poll a second, a worker leaking
// 20 MB/s moves 20 MB between two looks, and the look that finds it over may come a second late.
// While any serving worker would reach its limit within a few poll intervals at its last rate, the
// next tick comes after HOT_MS instead. Cheap to judge: the last two samples of each worker.
import { memoryOf } from './memory-of.js';
import { msToLimit } from './rising.js';

export const HOT_MS = 200;
const LOOKAHEAD_POLLS = 5;

/**
 * HOT_MS while a worker is that close to its rss limit and rising, else null (the poll interval).
 * @param {{window: import('./sample-window.js').SampleWindow}[]} workers
 * @param {number} now
 * @param {{limits:{rss:number|null}, pollInterval:number}} config
 */
export function hotPoll(workers, now, config) {
  const limit = config.limits?.rss ?? null;
  if (limit === null || config.pollInterval <= HOT_MS) return null;
  const horizonMs = LOOKAHEAD_POLLS * config.pollInterval;
  for (const w of workers) {
    const s = w.window.samples;
    if (s.length < 2) continue;
    const b = s[s.length - 1];
    const a = s[s.length - 2];
    const mb = memoryOf(b);
    const ma = memoryOf(a);
    if (mb === null || ma === null || b.t <= a.t || mb <= ma || now - b.t > 2 * config.pollInterval) continue;
    // Over the limit already is the verdict's business (msToLimit gives none); rising toward it is ours.
    const ms = msToLimit(mb, (mb - ma) / (b.t - a.t), limit);
    if (ms !== null && ms <= horizonMs) return HOT_MS;
  }
  return null;
}
