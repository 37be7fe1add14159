// Placeholder until the trend core lands: no leak verdicts, no trend.
/** The leak verdict for a worker, or null. */
export function leakVerdict() {
  return null;
}
/** Growth rates for the status view. */
export function workerTrend() {
  return { rssPerSec: null, heapPerSec: null };
}
