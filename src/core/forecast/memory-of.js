// "A worker's memory", spelled once: what the rss limit, the views and the forecasts all read.

/** The whole tree's RSS of a sample (the worker and its children), else its own; null when unknown. */
export function memoryOf(sample) {
  return sample ? (sample.treeRss ?? sample.rss ?? null) : null;
}
